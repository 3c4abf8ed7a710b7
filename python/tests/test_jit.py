"""plexa.jit: one trace per signature, cached executables, lower/compile,
static arguments, backends."""
import numpy as np
import pytest

import plexa


def test_traces_once_per_signature():
    @plexa.jit
    def f(x, y):
        return plexa.maximum(x @ y, 0).sum(axis=1)

    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    w = np.ones((3, 4), np.float32)
    expected = np.maximum(x @ w, 0).sum(axis=1)
    np.testing.assert_array_equal(f(x, w), expected)
    np.testing.assert_array_equal(f(x + 0, w), expected)
    assert f.trace_count == 1 and f.cache_size() == 1
    f(x.astype(np.float64), w.astype(np.float64))  # another dtype
    assert f.trace_count == 2
    f(np.zeros((5, 3), np.float32), w)  # another shape
    assert f.trace_count == 3 and f.cache_size() == 3
    f(x, w)
    assert f.trace_count == 3


def test_lower_and_compile():
    def mlp(x, w, b):
        return plexa.tanh(x @ w + b)

    f = plexa.jit(mlp)
    x = np.ones((2, 3), np.float32)
    w = np.full((3, 2), 0.5, np.float32)
    b = np.array([0.0, -1.0], np.float32)
    lowered = f.lower(x, w, b)
    text = lowered.as_text()
    assert text.startswith("HloModule mlp")
    assert "ENTRY %mlp (arg0: f32[2,3], arg1: f32[3,2], arg2: f32[2])" in text
    assert "tanh(" in text and "dot(" in text
    compiled = lowered.compile()
    np.testing.assert_allclose(compiled(x, w, b), np.tanh(x @ w + b),
                               rtol=1e-6)
    assert "tanh" in compiled.as_text()


def test_static_arguments():
    @plexa.jit(static_argnums=(1,))
    def power_sum(x, n):
        out = x
        for _ in range(n - 1):
            out = out * x
        return out.sum()

    x = np.array([1.0, 2.0, 3.0])
    assert power_sum(x, 2) == 14.0
    assert power_sum(x, 3) == 36.0
    assert power_sum(x, 2) == 14.0
    assert power_sum.trace_count == 2
    with pytest.raises(plexa.InvalidArgumentError, match="not hashable"):
        power_sum(x, [2])


def test_reference_backend_gives_the_same_numbers():
    def f(x):
        return (plexa.exp(x) / plexa.exp(x).sum(axis=-1, keepdims=True),
                x.max(axis=0))

    x = np.random.default_rng(5).standard_normal((4, 5))
    cpu_out = plexa.jit(f)(x)
    ref_out = plexa.jit(f, backend="reference")(x)
    e = np.exp(x)
    for out in (cpu_out, ref_out):
        np.testing.assert_allclose(out[0], e / e.sum(axis=-1, keepdims=True),
                                   rtol=1e-12)
        np.testing.assert_array_equal(out[1], x.max(axis=0))


def test_buffers_and_constants_as_arguments(client):
    w = np.array([[1.0, 2.0], [3.0, 4.0]])

    @plexa.jit
    def f(x):
        return x @ w + np.array([10.0, 20.0])

    b = plexa.client("cpu").buffer_from_numpy(np.array([1.0, 1.0]))
    np.testing.assert_array_equal(f(b), np.array([1.0, 1.0]) @ w + [10, 20])


def test_argument_errors():
    f = plexa.jit(lambda x: x + 1)
    with pytest.raises(plexa.InvalidArgumentError, match="argument 0"):
        f(object())
    with pytest.raises(plexa.InvalidArgumentError, match="argument 0"):
        f(np.array(["a"]))
    with pytest.raises(plexa.NotFoundError):
        plexa.jit(lambda x: x, backend="no_such_backend")(np.zeros(2))


def test_nested_tuple_outputs():
    f = plexa.jit(lambda x: (x, (x + 1, [x * 2])))
    x = np.array([1, 2], np.int16)
    a, (b, (c,)) = f(x)
    np.testing.assert_array_equal(a, x)
    np.testing.assert_array_equal(b, x + 1)
    np.testing.assert_array_equal(c, x * 2)


def test_donated_buffers_are_consumed():
    @plexa.jit(static_argnums=(0,), donate_argnums=(1,))
    def scale(k, x, y):
        return x * k + y

    c = plexa.client("cpu")
    x = c.buffer_from_numpy(np.array([1.0, 2.0]))
    y = c.buffer_from_numpy(np.array([10.0, 20.0]))
    np.testing.assert_array_equal(scale(3, x, y), [13.0, 26.0])
    with pytest.raises(plexa.FailedPreconditionError, match="donated"):
        x.to_numpy()
    np.testing.assert_array_equal(y.to_numpy(), [10.0, 20.0])  # kept
    with pytest.raises(plexa.InvalidArgumentError, match="static and donated"):
        plexa.jit(lambda a: a, static_argnums=0, donate_argnums=0)
