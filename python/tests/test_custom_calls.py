"""Custom calls: a library's exported targets, ctypes functions registered
through the ABI (the seed's void(void* out, void** ins)), typed targets."""
import ctypes

import numpy as np
import pytest

import plexa

ROW_SUMS = """HloModule rows
ENTRY main {
  x = f32[2,3] parameter(0)
  ROOT r = f32[2] custom-call(x), custom_call_target="row_sums_f32_2x3"
}
"""

ORIGINAL = ctypes.CFUNCTYPE(None, ctypes.c_void_p,
                            ctypes.POINTER(ctypes.c_void_p))


def test_target_from_a_library(any_client, custom_calls_library):
    exe = any_client.compile(ROW_SUMS,
                             custom_call_libraries=[custom_calls_library])
    x = np.array([[1, 2, 3], [4, 5, 6.5]], np.float32)
    np.testing.assert_array_equal(exe(x), x.sum(axis=1))


def test_tuple_target_from_a_library(client, custom_calls_library):
    exe = client.compile("""HloModule mm
ENTRY main {
  x = f32[4] parameter(0)
  ROOT r = (f32[], f32[]) custom-call(x), custom_call_target="min_max_f32_4"
}
""", custom_call_libraries=custom_calls_library)
    x = np.array([3, -1, 7, 2], np.float32)
    lo, hi = exe(x)
    assert lo == x.min() and hi == x.max()


def test_unresolved_target_is_not_found(client):
    with pytest.raises(plexa.NotFoundError) as e:
        client.compile(ROW_SUMS.replace("row_sums_f32_2x3", "no_such_target"))
    assert "no_such_target" in e.value.message
    assert e.value.code == "NOT_FOUND"


def test_ctypes_function_registered(cpu, reference):
    calls = []

    def saxpy(out, ins):
        # ins[0]: f32[4] x, ins[1]: f32[] a; out: f32[4] = a * x + 1
        x = np.ctypeslib.as_array(ctypes.cast(ins[0], ctypes.POINTER(
            ctypes.c_float)), shape=(4,))
        a = ctypes.cast(ins[1], ctypes.POINTER(ctypes.c_float))[0]
        y = np.ctypeslib.as_array(ctypes.cast(out, ctypes.POINTER(
            ctypes.c_float)), shape=(4,))
        y[:] = a * x + 1
        calls.append(a)

    fn = ORIGINAL(saxpy)
    for plugin in (cpu, reference):
        plugin.register_custom_call("py_saxpy", fn, api_version=0)
    x = np.array([1, 2, 3, 4], np.float32)
    for plugin in (cpu, reference):
        exe = plugin.client().compile("""HloModule s
ENTRY main {
  x = f32[4] parameter(0)
  a = f32[] parameter(1)
  ROOT r = f32[4] custom-call(x, a), custom_call_target="py_saxpy"
}
""")
        np.testing.assert_array_equal(exe(x, np.float32(3)), 3 * x + 1)
    assert calls == [3.0, 3.0]


def test_ctypes_function_called_from_jit(cpu):
    def twice(out, ins):
        src = ctypes.cast(ins[0], ctypes.POINTER(ctypes.c_double))
        dst = ctypes.cast(out, ctypes.POINTER(ctypes.c_double))
        for i in range(3):
            dst[i] = 2 * src[i]

    fn = ORIGINAL(twice)
    cpu.register_custom_call("py_twice", fn)

    @plexa.jit
    def f(x):
        return plexa.custom_call("py_twice", [x + 1], (3,), np.float64) - 1

    x = np.array([0.5, 1.0, -2.0])
    np.testing.assert_array_equal(f(x), 2 * (x + 1) - 1)


def typed_scale(cpu, library, scale):
    lib = ctypes.CDLL(library)
    cpu.register_custom_call("my_scale", lib.my_scale, api_version=1)
    return cpu.client().compile(f"""HloModule typed
ENTRY main {{
  x = f32[8] parameter(0)
  ROOT y = f32[8] custom-call(x), custom_call_target="my_scale",
      api_version=API_VERSION_TYPED_FFI, backend_config={{scale = {scale} : f32}}
}}
""")


def test_typed_target_from_a_library_registered(cpu, typed_scale_library):
    exe = typed_scale(cpu, typed_scale_library, "2.5")
    x = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(exe(x), np.float32(2.5) * x)


def test_a_target_error_reaches_python(cpu, typed_scale_library):
    exe = typed_scale(cpu, typed_scale_library, "0.0")
    with pytest.raises(plexa.InvalidArgumentError) as e:
        exe(np.zeros(8, np.float32))
    assert "my_scale" in e.value.message and "scale != 0" in e.value.message


def test_registration_errors(cpu):
    with pytest.raises(plexa.InvalidArgumentError, match="ctypes function"):
        cpu.register_custom_call("f", lambda out, ins: None)
    with pytest.raises(plexa.InvalidArgumentError, match="NULL"):
        cpu.register_custom_call("f", 0)
    with pytest.raises(plexa.InvalidArgumentError, match="api_version"):
        cpu.register_custom_call("f", ORIGINAL(lambda o, i: None),
                                 api_version=7)
    with pytest.raises(plexa.InvalidArgumentError, match="non-empty"):
        cpu.register_custom_call("", ORIGINAL(lambda o, i: None))
    with pytest.raises(plexa.PlexaError) as e:
        cpu.register_custom_call("f", ORIGINAL(lambda o, i: None),
                                 platform="vulkan")
    assert "platform" in e.value.message


def test_an_asynchronous_failure_reaches_the_waiter(cpu, typed_scale_library):
    exe = typed_scale(cpu, typed_scale_library, "0.0")
    client = exe.client
    gate = client.create_user_event()
    x = client.buffer_from_numpy(np.zeros(8, np.float32))
    out = exe.execute_async(x, wait_for=[gate])  # pending until the gate
    assert not out.is_ready()
    gate.set()
    with pytest.raises(plexa.InvalidArgumentError, match="scale != 0"):
        out.block_until_ready()
    with pytest.raises(plexa.InvalidArgumentError, match="scale != 0"):
        out.to_numpy()
