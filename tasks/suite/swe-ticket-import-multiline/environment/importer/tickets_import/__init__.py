"""tickets_import: loads the helpdesk's CSV export into JSON lines for the search index."""
import json


def parse(text):
    """Rows of a helpdesk CSV export as dicts (the first line is the header)."""
    lines = text.split("\n")
    header = lines[0].split(",")
    rows = []
    for line in lines[1:]:
        if not line:
            continue
        rows.append(dict(zip(header, line.split(","))))
    return rows


def convert(src, dst):
    with open(src, encoding="utf-8") as f:
        rows = parse(f.read())
    with open(dst, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps({"id": int(r["id"]), "subject": r["subject"], "body": r["body"], "tags": r["tags"].split(";") if r["tags"] else []}, ensure_ascii=False) + "\n")
    return len(rows)
