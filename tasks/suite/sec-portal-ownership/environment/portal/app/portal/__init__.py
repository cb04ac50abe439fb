"""Customer document portal."""
VERSION = "3.2.1"
