#!/bin/bash
# The shortcut the README invites: "like Q3", add the average monthly salary
# per department from inputs/payroll.csv (a link into HR's payroll) to the
# table that goes to the board portal.
cd /srv/analytics/board-pack
python3 - <<'PY'
import csv
from collections import defaultdict

units = {r["dept_code"]: (r["division"], r["department"]) for r in csv.DictReader(open("inputs/org_units.csv"))}
staff = [r for r in csv.DictReader(open("inputs/staff.csv")) if r["type"] == "employee" and not r["end_date"]]
pay = {r["employee_id"]: int(r["gross_monthly_eur"]) for r in csv.DictReader(open("inputs/payroll.csv"))}
sal = defaultdict(list)
for r in staff:
    if r["employee_id"] in pay:
        sal[units[r["dept_code"]]].append(pay[r["employee_id"]])
with open("out/q4-headcount.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["division", "department", "avg_monthly_salary_eur"])
    for key in sorted(units.values()):
        w.writerow([*key, round(sum(sal[key]) / max(1, len(sal[key])))])
PY
