"""The numpy-like builder: seed 003's broadcasting examples (expected values
from the seed, by hand, or from numpy), numpy's operators and reductions."""
import numpy as np
import pytest

import plexa


def run(fn, *args, backend="cpu"):
    return plexa.jit(fn, backend=backend)(*args)


# ---- seed 003, its worked examples ------------------------------------------

def test_seed_matrix_plus_vector():
    m = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    v = np.array([7, 8, 9], np.int32)
    np.testing.assert_array_equal(run(lambda a, b: a + b, m, v),
                                  [[8, 10, 12], [11, 13, 15]])


def test_seed_matrix_plus_scalar():
    m = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    np.testing.assert_array_equal(run(lambda a: a + 7, m),
                                  [[8, 9, 10], [11, 12, 13]])


def test_seed_vector_on_either_dimension_of_a_square_matrix():
    m = np.zeros((3, 3), np.int32)
    v = np.array([7, 8, 9], np.int32)
    rows = run(lambda a, b: plexa.add(a, b, broadcast_dimensions=(1,)), m, v)
    np.testing.assert_array_equal(rows, [[7, 8, 9], [7, 8, 9], [7, 8, 9]])
    cols = run(lambda a, b: plexa.add(a, b, broadcast_dimensions=(0,)), m, v)
    np.testing.assert_array_equal(cols, [[7, 7, 7], [8, 8, 8], [9, 9, 9]])


def test_seed_dimension_0_of_a_2x3_matrix_is_invalid_for_a_3_vector():
    m = np.zeros((2, 3), np.float32)
    v = np.zeros(3, np.float32)
    with pytest.raises(plexa.InvalidArgumentError) as e:
        run(lambda a, b: plexa.add(a, b, broadcast_dimensions=(0,)), m, v)
    assert "f32[2,3]" in e.value.message and "f32[3]" in e.value.message


def test_seed_matrix_onto_dimensions_1_2_of_a_cuboid():
    c = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    m = np.arange(12, dtype=np.float32).reshape(3, 4) * 10
    out = run(lambda a, b: plexa.add(a, b, broadcast_dimensions=(1, 2)), c, m)
    np.testing.assert_array_equal(out, c + m[None, :, :])
    # numpy's implicit rule picks the same dimensions (trailing).
    np.testing.assert_array_equal(run(lambda a, b: a + b, c, m), c + m)


@pytest.mark.parametrize("lhs,rhs,result", [
    ((2, 1), (2, 3), (2, 3)),
    ((1, 2, 5), (7, 2, 5), (7, 2, 5)),
    ((7, 2, 5), (7, 1, 5), (7, 2, 5)),
    ((2, 1), (1, 3), (2, 3)),  # the "outer operation"
])
def test_seed_degenerate_dimensions(lhs, rhs, result):
    a = np.arange(np.prod(lhs), dtype=np.float64).reshape(lhs)
    b = np.arange(np.prod(rhs), dtype=np.float64).reshape(rhs) * 100
    out = run(lambda x, y: x + y, a, b)
    assert out.shape == result
    np.testing.assert_array_equal(out, a + b)


def test_seed_incompatible_degenerate_dimensions():
    a = np.zeros((7, 2, 5), np.float32)
    b = np.zeros((7, 2, 6), np.float32)
    with pytest.raises(plexa.InvalidArgumentError) as e:
        run(lambda x, y: x + y, a, b)
    assert "f32[7,2,5]" in e.value.message and "f32[7,2,6]" in e.value.message


def test_seed_composition_vector_and_1x2_matrix():
    v = np.array([1, 2, 3, 4], np.int32)
    m = np.array([[5, 6]], np.int32)
    out = run(lambda a, b: plexa.add(a, b, broadcast_dimensions=(0,)), v, m)
    np.testing.assert_array_equal(out, [[6, 7], [7, 8], [8, 9], [9, 10]])


def test_seed_composition_1x2_onto_4x3x1():
    m = np.array([[5, 6]], np.float32)
    c = np.arange(12, dtype=np.float32).reshape(4, 3, 1)
    out = run(lambda a, b: plexa.add(a, b, broadcast_dimensions=(1, 2)), m, c)
    assert out.shape == (4, 3, 2)
    np.testing.assert_array_equal(out, m.reshape(1, 1, 2) + c)


def test_broadcasting_is_explicit_in_the_hlo():
    f = plexa.jit(lambda a, b: a + b)
    text = f.lower(np.zeros((2, 3), np.float32),
                   np.zeros(3, np.float32)).as_text()
    assert "broadcast(f32[3]" in text and "dimensions={1}" in text
    assert "add(f32[2,3]" in text


# ---- numpy's operators -------------------------------------------------------

def test_arithmetic_and_math_against_numpy():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    y = rng.uniform(0.5, 2, (3, 4)).astype(np.float32)
    out = run(lambda a, b: (a - b, a * b, a / b, -a, abs(a), a ** 2,
                            plexa.exp(a), plexa.log(b), plexa.sqrt(b),
                            plexa.tanh(a), plexa.maximum(a, 0),
                            plexa.minimum(a, b)), x, y)
    expected = (x - y, x * y, x / y, -x, np.abs(x), x ** 2, np.exp(x),
                np.log(y), np.sqrt(y), np.tanh(x), np.maximum(x, 0),
                np.minimum(x, y))
    for o, e in zip(out, expected):
        assert o.dtype == e.dtype
        np.testing.assert_allclose(o, e, rtol=2e-6, atol=1e-6)


def test_integer_division_and_modulo_follow_numpy():
    a = np.array([7, -7, 7, -7, 0, 5], np.int32)
    b = np.array([2, 2, -2, -2, 3, -5], np.int32)
    q, r, t = run(lambda x, y: (x // y, x % y, x / y), a, b)
    np.testing.assert_array_equal(q, a // b)
    np.testing.assert_array_equal(r, a % b)
    assert t.dtype == np.float64
    np.testing.assert_array_equal(t, a / b)


def test_type_promotion_follows_numpy():
    i = np.array([1, 2], np.int32)
    f = np.array([0.5, 0.25], np.float32)
    out = run(lambda a, b: (a + b, b + 1, b * 2.5, a + 1, a > 1), i, f)
    expected = (i + f, f + 1, f * 2.5, i + 1, i > 1)
    for o, e in zip(out, expected):
        assert o.dtype == e.dtype, (o.dtype, e.dtype)
        np.testing.assert_array_equal(o, e)


def test_comparisons_and_where():
    x = np.array([[-1, 2], [3, -4]], np.float64)
    out = run(lambda a: (a < 0, a == 2, a >= 3, a != 3,
                         plexa.where(a > 0, a, 0.0),
                         plexa.where(a > 0, 1.0, -1.0)), x)
    expected = (x < 0, x == 2, x >= 3, x != 3, np.where(x > 0, x, 0.0),
                np.where(x > 0, 1.0, -1.0))
    for o, e in zip(out, expected):
        assert o.dtype == e.dtype
        np.testing.assert_array_equal(o, e)


def test_where_broadcasts_its_three_operands():
    c = np.array([True, False, True])
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.float32(-1)
    out = run(lambda c_, x_: plexa.where(c_, x_, y), c, x)
    np.testing.assert_array_equal(out, np.where(c, x, y))


@pytest.mark.parametrize("xs,ws", [((2, 3), (3, 4)), ((3,), (3,)),
                                   ((2, 3), (3,)), ((3,), (3, 4)),
                                   ((5, 2, 3), (3, 4)), ((5, 2, 3), (5, 3, 4)),
                                   ((1, 2, 3), (4, 3, 2))])
def test_matmul_against_numpy(xs, ws):
    rng = np.random.default_rng(7)
    x = rng.standard_normal(xs)
    w = rng.standard_normal(ws)
    out = run(lambda a, b: a @ b, x, w)
    np.testing.assert_allclose(out, x @ w, rtol=1e-12)


def test_matmul_shape_error_names_the_dot():
    with pytest.raises(plexa.InvalidArgumentError) as e:
        run(lambda a, b: a @ b, np.zeros((2, 3)), np.zeros((4, 2)))
    assert "f64[2,3]" in e.value.message and "f64[4,2]" in e.value.message


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_against_numpy(axis, keepdims):
    x = np.random.default_rng(1).standard_normal((2, 3, 4))
    out = run(lambda a: (a.sum(axis=axis, keepdims=keepdims),
                         a.max(axis=axis, keepdims=keepdims),
                         a.min(axis=axis, keepdims=keepdims),
                         a.mean(axis=axis, keepdims=keepdims),
                         a.prod(axis=axis, keepdims=keepdims)), x)
    expected = (x.sum(axis=axis, keepdims=keepdims),
                x.max(axis=axis, keepdims=keepdims),
                x.min(axis=axis, keepdims=keepdims),
                x.mean(axis=axis, keepdims=keepdims),
                x.prod(axis=axis, keepdims=keepdims))
    for o, e in zip(out, expected):
        assert np.shape(o) == np.shape(e)
        np.testing.assert_allclose(o, e, rtol=1e-12)


def test_integer_sum_and_max_follow_numpy():
    x = np.array([[100, 120], [-128, 127]], np.int8)
    s, m, b = run(lambda a: (a.sum(axis=0), a.max(), (a > 0).sum()), x)
    assert s.dtype == x.sum(axis=0).dtype == np.int64
    np.testing.assert_array_equal(s, x.sum(axis=0))
    assert m == 127 and m.dtype == np.int8
    assert b == 3


def test_shapes_reshape_transpose_and_indexing():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    out = run(lambda a: (a.reshape(4, -1), a.T, a.transpose(1, 0, 2),
                         a[1], a[:, 1:3, ::2], a[..., ::-1], a[:, None, 0],
                         a[-1, -1, -1], plexa.expand_dims(a, 1),
                         plexa.squeeze(a[:, :1], 1),
                         plexa.concatenate([a, a * 2], axis=2),
                         plexa.broadcast_to(a[0, 0], (3, 4)),
                         a.astype(np.int32)), x)
    expected = (x.reshape(4, -1), x.T, x.transpose(1, 0, 2), x[1],
                x[:, 1:3, ::2], x[..., ::-1], x[:, None, 0], x[-1, -1, -1],
                np.expand_dims(x, 1), np.squeeze(x[:, :1], 1),
                np.concatenate([x, x * 2], axis=2),
                np.broadcast_to(x[0, 0], (3, 4)), x.astype(np.int32))
    for o, e in zip(out, expected):
        assert o.dtype == e.dtype
        np.testing.assert_array_equal(o, e)


def test_builder_errors():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(plexa.InvalidArgumentError, match="truth value"):
        run(lambda a: a if a > 0 else -a, x)
    with pytest.raises(plexa.InvalidArgumentError, match="cannot reshape"):
        run(lambda a: a.reshape(4, -1), x)
    with pytest.raises(plexa.InvalidArgumentError, match="out of bounds"):
        run(lambda a: a[2], x)
    with pytest.raises(plexa.InvalidArgumentError, match="axis 2"):
        run(lambda a: a.sum(axis=2), x)
    with pytest.raises(plexa.InvalidArgumentError, match="returned None"):
        run(lambda a: None, x)
    with pytest.raises(plexa.InvalidArgumentError, match="inside a function"):
        plexa.add(1, 2)
