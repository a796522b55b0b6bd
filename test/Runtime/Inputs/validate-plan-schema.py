#!/usr/bin/env python3
"""Validates plans against docs/plan.schema.json (JSON Schema 2020-12).

usage: validate-plan-schema.py SCHEMA PLAN... — prints "PLAN: valid" or
"PLAN: invalid at PATH: MESSAGE" (first error by path) for each plan.
"""
import json, os, sys
import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
for path in sys.argv[2:]:
    name = os.path.basename(path)
    try:
        plan = json.load(open(path))
    except ValueError as e:
        print(f"{name}: not JSON: {e}")
        continue
    errors = sorted(validator.iter_errors(plan), key=lambda e: list(map(str, e.absolute_path)))
    if not errors:
        print(f"{name}: valid")
    else:
        where = "/".join(str(p) for p in errors[0].absolute_path)
        print(f"{name}: invalid at {where}")
