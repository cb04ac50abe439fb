import sys

from tickets_import import convert

print(f"{convert(sys.argv[1], sys.argv[2])} tickets")
