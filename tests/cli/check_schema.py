#!/usr/bin/env python3
"""ctest cli.schema: `trainsim schema scenario|profile` is a valid JSON Schema (draft 2020-12)
that accepts every shipped scenario and profile and rejects what the loaders reject first
(an unknown key, a value out of range, a missing required key, a bare number for a quantity).

    check_schema.py TRAINSIM ROOT OUT_DIR
Exit 77 (skipped) without Python's jsonschema and yaml (scripts/install-deps installs
Debian's python3-jsonschema and python3-yaml)."""
import copy
import glob
import json
import os
import subprocess
import sys

try:
    import jsonschema
    import yaml
except ImportError:
    print("skipped: no jsonschema or yaml in this Python")
    sys.exit(77)

trainsim, root, out = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
failures = []


def schema(kind):
    path = os.path.join(out, f"{kind}.schema.json")
    subprocess.run([trainsim, "schema", kind, "-o", path], check=True)
    with open(path) as f:
        s = json.load(f)
    jsonschema.Draft202012Validator.check_schema(s)
    return jsonschema.Draft202012Validator(s)


def expect(validator, document, ok, what):
    errors = list(validator.iter_errors(document))
    if ok and errors:
        failures.append(f"{what}: rejected: {errors[0].message} at {list(errors[0].path)}")
    if not ok and not errors:
        failures.append(f"{what}: accepted, should be rejected")


scenario = schema("scenario")
profile = schema("profile")
scenarios = sorted(glob.glob(os.path.join(root, "scenarios", "**", "*.yaml"), recursive=True))
profiles = sorted(glob.glob(os.path.join(root, "hwprofiles", "*.yaml")))
for path in scenarios:
    with open(path) as f:
        expect(scenario, yaml.safe_load(f), True, os.path.relpath(path, root))
for path in profiles:
    with open(path) as f:
        expect(profile, yaml.safe_load(f), True, os.path.relpath(path, root))

with open(os.path.join(root, "scenarios", "korthikanti2022", "gpt-22b.yaml")) as f:
    base = yaml.safe_load(f)
bad = copy.deepcopy(base)
bad["model"]["layerz"] = 4
expect(scenario, bad, False, "scenario with model.layerz")
bad = copy.deepcopy(base)
bad["gpus"] = 0
expect(scenario, bad, False, "scenario with gpus 0")
bad = copy.deepcopy(base)
del bad["model"]["layers"]
expect(scenario, bad, False, "scenario without model.layers")
bad = copy.deepcopy(base)
bad["parallel"]["recompute"] = "some"
expect(scenario, bad, False, "scenario with recompute: some")

with open(os.path.join(root, "hwprofiles", "dgx-h100.yaml")) as f:
    base = yaml.safe_load(f)
bad = copy.deepcopy(base)
bad["gpu"]["memory_bandwidth"] = 3350
expect(profile, bad, False, "profile with a bare memory_bandwidth")
bad = copy.deepcopy(base)
bad["gpu"]["memory_bandwidth"] = "3350 GB"
expect(profile, bad, False, "profile with a size for a bandwidth")
bad = copy.deepcopy(base)
del bad["provenance"]
expect(profile, bad, False, "profile without provenance")
bad = copy.deepcopy(base)
bad["gpu"]["kernels"] = {"attention": 0.5}
expect(profile, bad, False, "profile with a compute-bound kernel class")

print(f"{len(scenarios)} scenarios and {len(profiles)} profiles checked against the schemas")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
