#!/usr/bin/env python3
"""Checks, from `swift package describe --type json` on stdin, that the conformance products
(ImagoConformance, ImagoConformanceXCTest) reach no C target and no system-library target of
this package, so an adopter depending on them alone needs no codec development package
(libpng-dev, libjpeg-dev, libwebp-dev). Prints each product's target closure and the other
packages' products it uses; exits 1 naming any C or system-library target it reaches.

Static, a few seconds: CI runs it (`make conformance-closure`) instead of a real adopter build.
"""
import json
import sys

PRODUCTS = ["ImagoConformance", "ImagoConformanceXCTest"]


def main() -> int:
    package = json.load(sys.stdin)
    targets = {target["name"]: target for target in package["targets"]}
    products = {product["name"]: product for product in package["products"]}
    failed = False
    for name in PRODUCTS:
        if name not in products:
            print(f"conformance-closure: no product {name}")
            return 1
        closure, external, todo = set(), set(), list(products[name]["targets"])
        while todo:
            target = targets[todo.pop()]
            if target["name"] in closure:
                continue
            closure.add(target["name"])
            todo.extend(target.get("target_dependencies", []))
            external.update(target.get("product_dependencies", []))
        offending = sorted(t for t in closure if targets[t]["module_type"] != "SwiftTarget")
        print(f"{name}: targets {', '.join(sorted(closure))}; other packages' products {', '.join(sorted(external))}")
        for target in offending:
            print(f"conformance-closure: {name} reaches {target} ({targets[target]['module_type']}), "
                  "which needs C headers or a system library to build")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
