"""plexa.parse, Module.as_text/check/optimize/from_file."""
import os

import pytest

import plexa
from conftest import SOURCE_DIR

ADD = """HloModule add
ENTRY main {
  x = f32[2] parameter(0)
  ROOT r = f32[2] add(x, x)
}
"""


def test_parse_and_print_round_trip():
    m = plexa.parse(ADD)
    assert m.name == "add"
    text = m.as_text()
    assert "ROOT %r = f32[2] add(f32[2] %x, f32[2] %x)" in text
    assert plexa.parse(text).as_text() == text
    assert m.program_shape == "(x: f32[2]) -> f32[2]"
    assert str(m) == text
    assert "add(%x, %x)" in m.as_text(print_operand_shapes=False)


def test_parse_error_has_line_and_column():
    with pytest.raises(plexa.InvalidArgumentError) as e:
        plexa.parse("HloModule m\nENTRY main {\n  x = f32[2] parameter(0)\n"
                    "  ROOT r = f32[2] add(x, y)\n}\n")
    assert e.value.code == "INVALID_ARGUMENT"
    assert e.value.message.startswith("4:")
    assert "y" in e.value.message
    with pytest.raises(plexa.InvalidArgumentError, match="expected HLO text"):
        plexa.parse(None)


def test_check_reports_a_wrong_shape():
    m = plexa.parse("HloModule m\nENTRY main {\n  x = f32[2] parameter(0)\n"
                    "  ROOT r = f32[3] negate(x)\n}\n")
    with pytest.raises(plexa.InvalidArgumentError) as e:
        m.check()
    assert "r" in e.value.message and "f32[2]" in e.value.message
    with pytest.raises(plexa.InvalidArgumentError):
        m.verify()
    plexa.parse(ADD).check()


def test_optimize_default_pipeline_folds_constants():
    m = plexa.parse("""HloModule m
ENTRY main {
  a = f32[] constant(2)
  b = f32[] constant(3)
  ROOT c = f32[] multiply(a, b)
}
""")
    out = m.optimize()
    assert "constant(6)" in out.as_text()
    assert "multiply" not in out.as_text()
    assert "multiply" in m.as_text()  # the original is unchanged


def test_optimize_named_passes():
    m = plexa.parse("""HloModule m
ENTRY main {
  x = f32[2] parameter(0)
  unused = f32[2] negate(x)
  ROOT r = f32[2] add(x, x)
}
""")
    assert "dce" in plexa.registered_passes()
    out = m.optimize(passes=["dce"])
    assert "negate" not in out.as_text()
    with pytest.raises(plexa.PlexaError) as e:
        m.optimize(passes=["no-such-pass"])
    assert "no-such-pass" in e.value.message
    with pytest.raises(plexa.InvalidArgumentError, match="list of pass names"):
        m.optimize(passes="dce")


def test_from_file():
    m = plexa.Module.from_file(os.path.join(SOURCE_DIR, "examples", "mlp.hlo"))
    m.check()
    assert "dot" in m.as_text()
    with pytest.raises(plexa.NotFoundError, match="cannot read"):
        plexa.Module.from_file("/nonexistent/x.hlo")
    bad = os.path.join(SOURCE_DIR, "tests", "cli", "bad_syntax.hlo")
    with pytest.raises(plexa.InvalidArgumentError) as e:
        plexa.Module.from_file(bad)
    assert e.value.message.startswith(bad + ":")
