#!/usr/bin/env python3
"""Writes tests/abi/compat/future_v1_4/plexa/plexa_c_api.h: the current
header turned into a simulated next minor (1.4) with exactly the additions
the compatibility policy allows (see the comment it writes at the top).

  python3 tests/abi/compat/make_future_v1_4.py          # rewrite the fixture
  python3 tests/abi/compat/make_future_v1_4.py --check  # ctest: up to date?
"""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
CURRENT = ROOT / "abi/include/plexa/plexa_c_api.h"
FIXTURE = pathlib.Path(__file__).resolve().parent / "future_v1_4/plexa/plexa_c_api.h"


def replace_once(text, old, new):
    if text.count(old) != 1:
        sys.exit(f"make_future_v1_4: expected exactly one {old!r} in the header")
    return text.replace(old, new)


def generate():
    s = CURRENT.read_text()
    minor = "#define PLX_API_MINOR 3\n"
    s = replace_once(s, "/* clang-format off */\n/* Plexa C ABI", """/* clang-format off */
/* TEST FIXTURE: a simulated future Plexa ABI v1.4 (tests/abi/compat),
 * written by make_future_v1_4.py from the current v1.3 header with exactly
 * these additions, as the compatibility policy allows within a major:
 *   - PLX_API_MINOR is 4;
 *   - one slot appended at the end of PLX_Api: PLX_Plugin_Ping, with its
 *     args struct PLX_Plugin_Ping_Args;
 *   - one field appended at the end of an args struct:
 *     PLX_Plugin_Attributes_Args.build_id (\\since 1.4), so a 1.4 plugin
 *     called by an older host sees a smaller struct_size and must not write
 *     it;
 *   - a new enum value, PLX_MemoryKind_DEVICE_SHARED = 4, which a 1.4
 *     plugin reports to hosts that do not know it;
 *   - a new extension type, PLX_ExtensionType_PRIORITY = 4
 *     (PLX_PriorityExtension), which a 1.4 host chains on calls to plugins
 *     that do not know it.
 * It is never installed and never used by the product.
 *
 * Plexa C ABI""")
    s = replace_once(s, minor, "#define PLX_API_MINOR 4\n")
    s = replace_once(s, """  size_t num_attributes;     /* out */
} PLX_Plugin_Attributes_Args;
#define PLX_Plugin_Attributes_Args_STRUCT_SIZE \\
  PLX_STRUCT_SIZE(PLX_Plugin_Attributes_Args, num_attributes)""",
                     """  size_t num_attributes;     /* out */
  /* \\since 1.4 */
  const char* build_id;      /* out: free form; lives as long as the plugin */
} PLX_Plugin_Attributes_Args;
#define PLX_Plugin_Attributes_Args_STRUCT_SIZE \\
  PLX_STRUCT_SIZE(PLX_Plugin_Attributes_Args, build_id)""")
    s = replace_once(s, """  PLX_MemoryKind_HOST = 3          /* host memory the device reaches only
                                      by copies */
} PLX_MemoryKind;""", """  PLX_MemoryKind_HOST = 3,         /* host memory the device reaches only
                                      by copies */
  /* \\since 1.4 */
  PLX_MemoryKind_DEVICE_SHARED = 4 /* device memory shared by devices */
} PLX_MemoryKind;""")
    s = replace_once(s, """  PLX_ExtensionType_LOGGER = 3    /* PLX_LoggerExtension, \\since 1.2 */
} PLX_ExtensionType;""", """  PLX_ExtensionType_LOGGER = 3,   /* PLX_LoggerExtension, \\since 1.2 */
  PLX_ExtensionType_PRIORITY = 4  /* PLX_PriorityExtension, \\since 1.4 */
} PLX_ExtensionType;

/* \\since 1.4. Chained on PLX_Executable_Execute_Args.extension_start: a
 * scheduling hint. Plugins that do not know it ignore it. */
typedef struct PLX_PriorityExtension {
  size_t struct_size;
  int32_t type;          /* PLX_ExtensionType_PRIORITY */
  PLX_Extension* next;
  int32_t priority;
} PLX_PriorityExtension;
#define PLX_PriorityExtension_STRUCT_SIZE \\
  PLX_STRUCT_SIZE(PLX_PriorityExtension, priority)""")
    s = replace_once(s, "/* ---------------------------------------------------------- The table */",
                     """/* ------------------------------------------------------ Ping (1.4) */

/* \\since 1.4. Answers `value + 1` in `reply`. Thread-safe. A host checks
 * PLX_API_HAS_SLOT(api, PLX_Plugin_Ping) before calling it. */
typedef struct PLX_Plugin_Ping_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  int64_t value;
  int64_t reply; /* out */
} PLX_Plugin_Ping_Args;
#define PLX_Plugin_Ping_Args_STRUCT_SIZE \\
  PLX_STRUCT_SIZE(PLX_Plugin_Ping_Args, reply)
typedef PLX_Error* PLX_Plugin_Ping_Fn(PLX_Plugin_Ping_Args* args);

/* ---------------------------------------------------------- The table */""")
    s = replace_once(s, "} PLX_Api;\n", """
  /* \\since 1.4 */
  PLX_Plugin_Ping_Fn* PLX_Plugin_Ping;
} PLX_Api;
""")
    s = replace_once(s, "#define PLX_Api_STRUCT_SIZE PLX_Api_STRUCT_SIZE_1_2\n",
                     """/* Size of the table a v1.4 plugin provides. */
#define PLX_Api_STRUCT_SIZE_1_4 PLX_STRUCT_SIZE(PLX_Api, PLX_Plugin_Ping)
#define PLX_Api_STRUCT_SIZE PLX_Api_STRUCT_SIZE_1_4
""")
    last = s.rindex("PLX_STATIC_ASSERT(PLX_Api_STRUCT_SIZE_1_2 == PLX_SLOT_OFFSET(")
    n = int(s[last:].split("PLX_SLOT_OFFSET(")[1].split(")")[0])
    end = s.index("\n", s.index('"v1.2 table size changed");', last)) + 1
    s = s[:end] + f"""PLX_STATIC_ASSERT(offsetof(PLX_Api, PLX_Plugin_Ping) == PLX_SLOT_OFFSET({n}),
                  "slot moved");
PLX_STATIC_ASSERT(PLX_Api_STRUCT_SIZE_1_4 == PLX_SLOT_OFFSET({n + 1}),
                  "v1.4 table size changed");
""" + s[end:]
    return s


def main():
    text = generate()
    if "--check" in sys.argv[1:]:
        if FIXTURE.read_text() != text:
            sys.exit("tests/abi/compat/future_v1_4 is out of date with the "
                     "header: run python3 tests/abi/compat/make_future_v1_4.py")
        print("future_v1_4 fixture matches the current header")
        return
    FIXTURE.write_text(text)


if __name__ == "__main__":
    main()
