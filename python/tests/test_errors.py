"""Bad input gives a PlexaError with the ABI's code and a message naming
what and where; never a crash."""
import numpy as np
import pytest

import plexa

ADD = """HloModule add
ENTRY main {
  x = f32[2,3] parameter(0)
  ROOT r = f32[2,3] add(x, x)
}
"""


@pytest.fixture(scope="module")
def add(client):
    return client.compile(ADD)


def test_hierarchy():
    assert issubclass(plexa.InvalidArgumentError, plexa.PlexaError)
    assert issubclass(plexa.InvalidArgumentError, ValueError)
    assert issubclass(plexa.UnimplementedError, NotImplementedError)
    assert issubclass(plexa.ResourceExhaustedError, plexa.PlexaError)
    for code, cls in plexa.ERROR_CLASSES.items():
        assert cls.code == code
    e = plexa.NotFoundError("gone")
    assert str(e) == "NOT_FOUND: gone" and e.message == "gone"


def test_wrong_argument_count(add):
    with pytest.raises(plexa.InvalidArgumentError) as e:
        add()
    assert e.value.message == ("the executable takes 1 argument(s) "
                               "(f32[2,3]) but 0 were given")


def test_wrong_dtype(add):
    with pytest.raises(plexa.InvalidArgumentError) as e:
        add(np.zeros((2, 3), np.float64))
    assert e.value.message == ("argument 0: the executable takes f32[2,3] but "
                               "got float64 array of shape (2, 3) "
                               "(f64[2,3])")


def test_wrong_shape(add):
    with pytest.raises(plexa.InvalidArgumentError, match=r"shape \(3,\)"):
        add(np.zeros(3, np.float32))


def test_none_and_objects(add, client):
    with pytest.raises(plexa.InvalidArgumentError, match="None is not an array"):
        add(None)
    with pytest.raises(plexa.InvalidArgumentError, match="cannot make an array"):
        add(object())
    with pytest.raises(plexa.InvalidArgumentError) as e:
        client.buffer_from_numpy(np.array(["a", "b"]))
    assert "has no Plexa element type" in e.value.message
    with pytest.raises(plexa.InvalidArgumentError, match="None is not"):
        client.buffer_from_numpy(None)


def test_big_endian_is_refused(client):
    with pytest.raises(plexa.InvalidArgumentError, match="big-endian"):
        client.buffer_from_numpy(np.zeros(3, ">f4"))


def test_compile_errors(client):
    with pytest.raises(plexa.InvalidArgumentError) as e:
        client.compile("HloModule m\nENTRY main {\n  ROOT x = f32[2] bogus()\n}")
    assert e.value.message.startswith("3:")
    with pytest.raises(plexa.InvalidArgumentError, match="expected a plexa"):
        client.compile(42)
    with pytest.raises(plexa.InvalidArgumentError, match="num_replicas"):
        client.compile(ADD, num_replicas=0)


def test_memory_limit_is_resource_exhausted(cpu):
    c = cpu.client(memory_limit_bytes=1024)
    with pytest.raises(plexa.ResourceExhaustedError) as e:
        c.compile("""HloModule big
ENTRY main {
  x = f32[1024] parameter(0)
  ROOT r = f32[1024] negate(x)
}
""")
    assert e.value.code == "RESOURCE_EXHAUSTED"
    assert "1024" in e.value.message


def test_buffer_of_another_client(cpu, add):
    other = cpu.client().buffer_from_numpy(np.zeros((2, 3), np.float32))
    with pytest.raises(plexa.InvalidArgumentError, match="another client"):
        add(other)


def test_device_assignment_of_the_wrong_length(client):
    with pytest.raises(plexa.InvalidArgumentError) as e:
        client.compile(ADD, num_replicas=2, device_assignment=[0])
    assert e.value.message == "device_assignment has 1 entries for 2 replicas"
