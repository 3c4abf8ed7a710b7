"""Compile and run: dtypes, strided views, tuples, replicas, donation,
asynchronous execution and device buffers. numpy is the oracle."""
import numpy as np
import pytest

import plexa

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8,
          np.uint16, np.uint32, np.uint64, np.float16, np.float32, np.float64,
          np.complex64, np.complex128]


def program(body, params, result, name="m"):
    decl = "\n".join(f"  p{i} = {s} parameter({i})" for i, s in
                     enumerate(params))
    return f"HloModule {name}\nENTRY main {{\n{decl}\n  ROOT r = {result} " \
           f"{body}\n}}\n"


def sample(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype,
                            endpoint=True)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) +
                1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_each_dtype_round_trips(any_client, dtype):
    t = plexa.builder.type_name(dtype)
    x = sample(dtype, (3, 4))
    exe = any_client.compile(program("copy(p0)", [f"{t}[3,4]"], f"{t}[3,4]"))
    out = exe(x)
    assert out.dtype == x.dtype and out.shape == (3, 4)
    np.testing.assert_array_equal(out, x)
    b = any_client.buffer_from_numpy(x)
    assert b.shape == (3, 4) and b.dtype == x.dtype
    np.testing.assert_array_equal(b.to_numpy(), x)


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d is not np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_each_numeric_dtype_adds_as_numpy(client, dtype):
    t = plexa.builder.type_name(dtype)
    x, y = sample(dtype, (5,), 1), sample(dtype, (5,), 2)
    exe = client.compile(program("add(p0, p1)", [f"{t}[5]", f"{t}[5]"],
                                 f"{t}[5]"))
    with np.errstate(over="ignore"):
        expected = x + y  # integers wrap, as in HLO
    np.testing.assert_array_equal(exe(x, y), expected)


def test_bfloat16_needs_ml_dtypes(client):
    try:
        import ml_dtypes
    except ImportError:
        ml_dtypes = None
    exe = client.compile(program("convert(p0)", ["f32[3]"], "bf16[3]"))
    x = np.array([1.0, 2.5, -3.0], np.float32)
    if ml_dtypes is None:
        with pytest.raises(plexa.UnimplementedError, match="ml_dtypes"):
            exe(x)
    else:
        np.testing.assert_array_equal(exe(x).astype(np.float32), x)


STRIDED_VIEWS = {
    "transpose": lambda a: a.T,
    "step_slice": lambda a: a[::2, 1::2],
    "reversed": lambda a: a[::-1, ::-1],
    "broadcast": lambda a: np.broadcast_to(a[:1], a.shape),
    "column": lambda a: a[:, 2:5],
}


@pytest.mark.parametrize("view", STRIDED_VIEWS)
def test_strided_views(any_client, view):
    base = np.arange(48, dtype=np.float32).reshape(6, 8) * 0.5
    v = STRIDED_VIEWS[view](base)
    assert not v.flags.c_contiguous
    shape = ",".join(map(str, v.shape))
    exe = any_client.compile(program("negate(p0)", [f"f32[{shape}]"],
                                     f"f32[{shape}]"))
    np.testing.assert_array_equal(exe(v), -v)
    np.testing.assert_array_equal(any_client.buffer_from_numpy(v).to_numpy(),
                                  v)


def test_tuple_results(any_client):
    exe = any_client.compile("""HloModule t
ENTRY main {
  x = s32[3] parameter(0)
  y = s32[3] parameter(1)
  s = s32[3] add(x, y)
  d = s32[3] subtract(x, y)
  n = s32[3] negate(x)
  inner = (s32[3], s32[3]) tuple(d, n)
  ROOT r = (s32[3], (s32[3], s32[3])) tuple(s, inner)
}
""")
    x = np.array([1, 2, 3], np.int32)
    y = np.array([10, 20, 30], np.int32)
    s, (d, n) = exe(x, y)
    np.testing.assert_array_equal(s, x + y)
    np.testing.assert_array_equal(d, x - y)
    np.testing.assert_array_equal(n, -x)
    assert exe.output_shapes == ["s32[3]{0}"] * 3


def test_python_lists_and_scalars_take_the_parameter_dtype(client):
    exe = client.compile("""HloModule m
ENTRY main {
  x = f32[2] parameter(0)
  s = f32[] parameter(1)
  b = f32[2] broadcast(s), dimensions={}
  ROOT r = f32[2] multiply(x, b)
}
""")
    out = exe([1.5, 2.0], 3)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.array([4.5, 6.0], np.float32))


def test_replicas(cpu):
    c = cpu.client(num_devices=2)
    exe = c.compile("""HloModule ar
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[3] parameter(0)
  ROOT r = f32[3] all-reduce(x), to_apply=add, replica_groups={}
}
""", num_replicas=2)
    assert exe.num_replicas == 2
    x0 = np.array([1, 2, 3], np.float32)
    x1 = np.array([10, 20, 30], np.float32)
    r0, r1 = exe.execute_replicated([[x0], [x1]])
    np.testing.assert_array_equal(r0, x0 + x1)
    np.testing.assert_array_equal(r1, x0 + x1)
    with pytest.raises(plexa.InvalidArgumentError, match="execute_replicated"):
        exe(x0)
    with pytest.raises(plexa.InvalidArgumentError, match="2 replica"):
        exe.execute_replicated([[x0]])


def test_partitions(cpu):
    # One replica of 2 SPMD partitions: each partition scales its shard by
    # (partition-id + 1), then the partitions sum (flattened device ids).
    c = cpu.client(num_devices=2)
    exe = c.compile("""HloModule spmd, num_partitions=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[3] parameter(0)
  p = u32[] partition-id()
  one = u32[] constant(1)
  p1 = u32[] add(p, one)
  f = f32[] convert(p1)
  fb = f32[3] broadcast(f), dimensions={}
  y = f32[3] multiply(x, fb)
  ROOT r = f32[3] all-reduce(y), channel_id=1, replica_groups={{0,1}},
      use_global_device_ids=true, to_apply=add
}
""", num_partitions=2)
    assert exe.num_replicas == 1
    assert exe.num_partitions == 2
    x0 = np.array([1, 2, 3], np.float32)
    x1 = np.array([10, 20, 30], np.float32)
    r0, r1 = exe.execute_replicated([[x0], [x1]])
    np.testing.assert_array_equal(r0, x0 * 1 + x1 * 2)
    np.testing.assert_array_equal(r1, x0 * 1 + x1 * 2)
    with pytest.raises(plexa.InvalidArgumentError, match="2 partition"):
        exe.execute_replicated([[x0]])
    with pytest.raises(plexa.InvalidArgumentError, match="num_partitions"):
        c.compile("HloModule m\nENTRY e {\n ROOT c = f32[] constant(0)\n}\n",
                  num_partitions=0)


def test_device_buffers(client):
    x = np.arange(6, dtype=np.int64).reshape(2, 3)
    b = client.buffer_from_numpy(x)
    assert b.shape == (2, 3)
    assert b.dtype == np.int64
    assert b.hlo_shape == "s64[2,3]{1,0}"
    assert b.device.id == 0
    np.testing.assert_array_equal(np.asarray(b), x)
    exe = client.compile(program("add(p0, p0)", ["s64[2,3]"], "s64[2,3]"))
    np.testing.assert_array_equal(exe(b), 2 * x)
    b.delete()
    assert b.is_deleted
    with pytest.raises(plexa.FailedPreconditionError):
        b.to_numpy()
    with pytest.raises(plexa.InvalidArgumentError, match="device 5"):
        client.buffer_from_numpy(x, device=5)


def test_copy_to_device(cpu):
    c = cpu.client(num_devices=2)
    x = np.array([1.0, 2.0], np.float64)
    b = c.buffer_from_numpy(x, device=0).copy_to_device(1)
    assert b.device.id == 1
    np.testing.assert_array_equal(b.to_numpy(), x)


def test_donation(client):
    exe = client.compile(program("add(p0, p0)", ["f32[4]"], "f32[4]"))
    x = np.array([1, 2, 3, 4], np.float32)
    b = client.buffer_from_numpy(x)
    out = exe(b, donate_argnums=(0,))
    np.testing.assert_array_equal(out, 2 * x)
    with pytest.raises(plexa.FailedPreconditionError) as e:
        b.to_numpy()
    assert "donated" in e.value.message
    with pytest.raises(plexa.InvalidArgumentError, match="donate_argnums"):
        exe(x, donate_argnums=(3,))


def test_async_chain(any_client):
    exe = any_client.compile(program("multiply(p0, p0)", ["f64[3]"], "f64[3]"))
    x = np.array([1.5, -2.0, 3.0])
    first = exe.execute_async(x)
    second = exe.execute_async(first)  # straight from a pending buffer
    assert second.block_until_ready() is second
    assert second.is_ready()
    np.testing.assert_array_equal(second.to_numpy(), (x * x) ** 2)
    transfer = first.to_numpy_async()
    np.testing.assert_array_equal(transfer.result(), x * x)
    assert transfer.done()


def test_async_tuple_results_are_buffers(client):
    exe = client.compile("""HloModule t
ENTRY main {
  x = f32[2] parameter(0)
  n = f32[2] negate(x)
  ROOT r = (f32[2], f32[2]) tuple(x, n)
}
""")
    a, b = exe.execute_async(np.array([1, 2], np.float32))
    assert isinstance(a, plexa.Buffer) and isinstance(b, plexa.Buffer)
    np.testing.assert_array_equal(b.to_numpy(), [-1, -2])


def test_executable_statistics_and_text(client):
    exe = client.compile(program("add(p0, p0)", ["f32[4]"], "f32[4]"))
    assert "add" in exe.as_text()
    assert exe.program_shape == "(f32[4]{0}) -> f32[4]{0}"
    assert exe.parameter_shapes == ["f32[4]{0}"]
    stats = exe.statistics()
    assert stats["argument_bytes"] == 16 and stats["output_bytes"] == 16


def test_a_strided_view_is_not_copied_in_python(client):
    import tracemalloc
    base = np.ones((1024, 1024), np.float64)  # 8 MiB
    view = base[::2, ::-1].T                  # 2 MiB of elements, strided
    exe = client.compile(program("negate(p0)", ["f64[1024,512]"],
                                 "f64[1024,512]"))
    b = client.buffer_from_numpy(view)        # warm up imports
    tracemalloc.start()
    try:
        b = client.buffer_from_numpy(view)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < view.nbytes // 8, peak  # numpy's allocations are traced
    np.testing.assert_array_equal(b.to_numpy(), view)
    np.testing.assert_array_equal(exe(view), -view)


@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (3, 0, 2)])
def test_scalars_and_empty_arrays(any_client, shape):
    t = ",".join(map(str, shape))
    exe = any_client.compile(program("negate(p0)", [f"s32[{t}]"], f"s32[{t}]"))
    x = np.full(shape, 7, np.int32)
    out = exe(x)
    assert out.shape == shape and out.dtype == np.int32
    np.testing.assert_array_equal(out, -x)
    np.testing.assert_array_equal(exe(x[::-1] if x.ndim else x), -x)


def test_threads_execute_one_executable(client):
    from concurrent.futures import ThreadPoolExecutor
    exe = client.compile(program("multiply(p0, p0)", ["f32[256]"], "f32[256]"))
    inputs = [np.full(256, i, np.float32) for i in range(16)]
    with ThreadPoolExecutor(4) as pool:
        outs = list(pool.map(exe, inputs))
    for x, out in zip(inputs, outs):
        np.testing.assert_array_equal(out, x * x)


def test_user_events_gate_executions(client):
    exe = client.compile(program("add(p0, p0)", ["s32[2]"], "s32[2]"))
    gate = client.create_user_event()
    first = exe.execute_async(np.array([1, 2], np.int32), wait_for=[gate])
    second = exe.execute_async(first)
    assert not gate.is_ready() and not first.is_ready()
    assert not second.is_ready()
    gate.set()
    np.testing.assert_array_equal(second.to_numpy(), [4, 8])
    gate.wait()


def test_an_error_set_on_a_user_event_fails_what_waits(client):
    exe = client.compile(program("add(p0, p0)", ["s32[2]"], "s32[2]"))
    gate = client.create_user_event()
    out = exe.execute_async(np.array([1, 2], np.int32), wait_for=[gate])
    gate.set("DATA_LOSS", "sensor died")
    with pytest.raises(plexa.DataLossError, match="sensor died"):
        out.to_numpy()
    with pytest.raises(plexa.FailedPreconditionError):
        gate.set()  # set twice
    with pytest.raises(plexa.InvalidArgumentError, match="status code name"):
        client.create_user_event().set("NOPE")


def test_serialize_and_deserialize(cpu, reference):
    c = cpu.client()
    exe = c.compile(program("subtract(p0, p1)", ["f32[3]", "f32[3]"],
                            "f32[3]"))
    data = exe.serialize()
    assert isinstance(data, bytes) and data
    again = c.deserialize_executable(data)
    x = np.array([5, 6, 7], np.float32)
    y = np.array([1, 1, 2], np.float32)
    np.testing.assert_array_equal(again(x, y), x - y)
    with pytest.raises(plexa.InvalidArgumentError):
        c.deserialize_executable(b"not an executable")
    with pytest.raises(plexa.InvalidArgumentError, match="expected bytes"):
        c.deserialize_executable("text")
    ref = reference.client().compile(program("negate(p0)", ["f32[1]"],
                                             "f32[1]"))
    with pytest.raises(plexa.UnimplementedError):
        ref.serialize()


DYNAMIC = """HloModule dynamic
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
ENTRY e {
  x = f32[<=8,3] parameter(0)
  zero = f32[] constant(0)
  rows = f32[<=8] reduce(x, zero), dimensions={1}, to_apply=add
  n = s32[] get-dimension-size(x), dimensions={0}
  ROOT t = (f32[<=8], s32[]) tuple(rows, n)
}
"""


def test_dynamic_shapes(any_client):
    # docs/dynamic_shapes.md: a dynamic parameter takes any number of rows
    # up to its bound; the result has as many row sums as rows were given.
    exe = any_client.compile(DYNAMIC)
    for rows in (5, 8, 0):
        x = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
        sums, n = exe(x)
        np.testing.assert_array_equal(sums, x.sum(axis=1))
        assert int(n) == rows
    with pytest.raises(plexa.InvalidArgumentError, match=r"\[<=8,3\]"):
        exe(np.zeros((9, 3), np.float32))
    with pytest.raises(plexa.InvalidArgumentError, match="execute_async"):
        exe.execute_async(np.zeros((2, 3), np.float32))
