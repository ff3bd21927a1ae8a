#!/usr/bin/env python3
# Checks a JUnit XML file as test reporters read it, beyond what its schema (junit.xsd) says:
# it parses as XML, the root is <testsuites>, every count attribute equals what the file holds
# (tests, failures, errors per suite and in all), every testcase has a name and at most one
# outcome. Usage: check_junit.py FILE; prints what is wrong and exits 1, or exits 0.
import sys
import xml.etree.ElementTree as ET

problems = []
try:
    root = ET.parse(sys.argv[1]).getroot()
except ET.ParseError as e:
    print(f"not XML: {e}")
    sys.exit(1)
if root.tag != "testsuites":
    problems.append(f"root is <{root.tag}>, not <testsuites>")
total = {"tests": 0, "failures": 0, "errors": 0}
for suite in root:
    if suite.tag != "testsuite":
        problems.append(f"<{suite.tag}> under <testsuites>")
        continue
    name = suite.get("name")
    if not name:
        problems.append("a testsuite without a name")
    cases = suite.findall("testcase")
    counts = {"tests": len(cases),
              "failures": sum(1 for c in cases if c.find("failure") is not None),
              "errors": sum(1 for c in cases if c.find("error") is not None)}
    for key, value in counts.items():
        if suite.get(key) != str(value):
            problems.append(f"suite {name}: {key}={suite.get(key)} but it holds {value}")
        total[key] += value
    for c in cases:
        if not c.get("name"):
            problems.append(f"suite {name}: a testcase without a name")
        outcomes = [x for x in c if x.tag in ("failure", "error", "skipped")]
        if len(outcomes) > 1:
            problems.append(f"suite {name}: testcase {c.get('name')} has {len(outcomes)} outcomes")
    float(suite.get("time", "0"))
for key, value in total.items():
    if root.get(key) is not None and root.get(key) != str(value):
        problems.append(f"testsuites: {key}={root.get(key)} but the suites hold {value}")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
