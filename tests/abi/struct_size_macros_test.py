#!/usr/bin/env python3
"""Every `X_STRUCT_SIZE` (and `X_STRUCT_SIZE_1_0`-style) macro of a Plexa
ABI header must name X's LAST field when it is PLX_STRUCT_SIZE(X, field)
of the current shape of X; a macro naming an earlier field would make
callers pass a struct_size that cuts the struct short, and the callee would
ignore the fields after it. The versioned `_STRUCT_SIZE_1_0` macros name the
last field as of 1.0 and are checked to name a field of X that exists.

  struct_size_macros_test.py HEADER...

Prints one line per violation and `N passed, M failed` at the end.
"""
import os
import re
import sys
import tempfile

STRUCT_RE = re.compile(r"typedef struct (PLX_\w+) \{(.*?)\} \1;", re.S)
MACRO_RE = re.compile(
    r"#define (PLX_\w+?)_STRUCT_SIZE(_\d+_\d+)?\s*\\?\s*PLX_STRUCT_SIZE\(\s*"
    r"(PLX_\w+)\s*,\s*(\w+)\s*\)")


def fields_of(body):
    """Field names in declaration order (comments and nested parens
    removed; function pointers named by their (*name))."""
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    names = []
    for decl in body.split(";"):
        decl = decl.strip()
        if not decl:
            continue
        fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)
        if fp:
            names.append(fp.group(1))
            continue
        m = re.search(r"(\w+)\s*(\[[^\]]*\])?\s*$", decl)
        if m:
            names.append(m.group(1))
    return names


def check(path, report=print):
    text = open(path, encoding="utf-8").read()
    structs = {m.group(1): fields_of(m.group(2))
               for m in STRUCT_RE.finditer(text)}
    passed, failed = 0, 0
    for m in MACRO_RE.finditer(text):
        name, version, type_name, field = m.groups()
        where = "%s: %s_STRUCT_SIZE%s" % (path, name, version or "")
        if name != type_name:
            report("FAIL %s measures %s, not %s" % (where, type_name, name))
            failed += 1
            continue
        fields = structs.get(type_name)
        if fields is None:
            report("FAIL %s: no typedef struct %s" % (where, type_name))
            failed += 1
            continue
        if field not in fields:
            report("FAIL %s names %s, not a field of %s" % (where, field,
                                                            type_name))
            failed += 1
        elif version is None and field != fields[-1]:
            report("FAIL %s names %s but the last field of %s is %s"
                  % (where, field, type_name, fields[-1]))
            failed += 1
        else:
            passed += 1
    if passed + failed < 20:
        report("FAIL %s: only %d macros found (the pattern is broken?)"
              % (path, passed + failed))
        failed += 1
    return passed, failed


def main(paths):
    passed, failed = 0, 0
    for p in paths:
        a, b = check(p)
        passed += a
        failed += b
    # The check itself: a macro naming an earlier field must fail.
    bad = ("typedef struct PLX_T { size_t struct_size; int a; int b; } PLX_T;\n"
           "#define PLX_T_STRUCT_SIZE PLX_STRUCT_SIZE(PLX_T, a)\n")
    with tempfile.NamedTemporaryFile("w", suffix=".h", delete=False) as f:
        f.write(bad * 20)
    a, b = check(f.name, report=lambda *args: None)
    os.unlink(f.name)
    if b == 0:
        print("FAIL self-check: a macro naming an earlier field passed")
        failed += 1
    else:
        passed += 1
    print("struct_size macros: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
