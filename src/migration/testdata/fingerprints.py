"""Independent oracle for sealkit's migration fingerprints (DESIGN.md "Migration evidence").

Reads a JSON array of cases on stdin; each case holds a version 1 mapping
document ("mapping", may be null) and a snapshot ("snapshot", may be null).
Writes a JSON array with, per case, the mapping fingerprint, the two snapshot
fingerprints and the schema confirmation fingerprint, computed here with the
standard library only.
"""
import hashlib
import json
import sys


def digest(value):
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def mapping_fingerprint(mapping):
    normalized = {}
    for table, rules in mapping["tables"].items():
        normalized[table.casefold()] = [
            {"source": rule["source"], "target": rule["target"], "cast": rule["cast"]} for rule in rules
        ]
    return digest(normalized)


def main():
    out = []
    for case in json.load(sys.stdin):
        result = {}
        if case.get("mapping") is not None:
            result["mapping"] = mapping_fingerprint(case["mapping"])
        snapshot = case.get("snapshot")
        if snapshot is not None:
            result["source_schema"] = digest([[t["table"], [c["name"] for c in t["columns"]]] for t in snapshot])
            result["typed_schema"] = digest(
                [[t["table"], [[c["name"], c["type_family"]] for c in t["columns"]]] for t in snapshot]
            )
            if "mapping" in result:
                result["confirmation"] = digest(
                    {
                        "mapping": result["mapping"],
                        "source_schema": result["source_schema"],
                        "typed_schema": result["typed_schema"],
                    }
                )
        out.append(result)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
