"""Checks runtime/python/kiln_rt.py against the fake add model.

Usage: check_kiln_rt_py.py path/to/fake_add_model.so  (KILN_RT_LIBRARY set)
"""

import sys

import numpy as np

import kiln_rt


def expect_error(status, fragment, fn, *args):
    try:
        fn(*args)
    except kiln_rt.KilnError as e:
        assert e.status == status, (e.status, status, str(e))
        assert fragment in e.message, (fragment, e.message)
        return
    raise AssertionError(f"expected {status}")


def main(path):
    with kiln_rt.Model(path) as m:
        assert m.name == "fake_add", m.name
        assert [i.name for i in m.inputs] == ["x", "y"]
        assert m.inputs[0].dtype == np.float32
        assert m.inputs[0].dims == ["batch", 3], m.inputs[0].dims
        assert m.outputs[0].name == "z"
        assert m.arena_bytes == 256

        x = np.arange(12, dtype=np.float32).reshape(4, 3)
        y = np.full((4, 3), 0.5, dtype=np.float32)
        (z,) = m.run(x, y)
        assert z.shape == (4, 3) and z.dtype == np.float32
        np.testing.assert_array_equal(z, x + y)
        (z2,) = m.run({"y": y, "x": x})
        np.testing.assert_array_equal(z2, z)
        (z3,) = m.run(x=x[:2], y=y[:2])
        np.testing.assert_array_equal(z3, (x + y)[:2])
        # Non-contiguous inputs are copied; lists take the model dtype.
        (z4,) = m.run(np.asfortranarray(x), y.tolist())
        np.testing.assert_array_equal(z4, z)

        expect_error("SHAPE_MISMATCH", "input 'y' dim 0", m.run, x, y[:3])
        expect_error("SHAPE_MISMATCH", "input 'x' dim 1: expected 3, got 2",
                     m.run, x[:, :2], y[:, :2])
        expect_error("DTYPE_MISMATCH", "expected dtype float32, got float64",
                     m.run, x.astype(np.float64), y)
        expect_error("INVALID_ARGUMENT", "expected 2 inputs, got 1", m.run, x)
        expect_error("INVALID_ARGUMENT", "missing inputs", m.run, {"x": x})
        bad = x.copy()
        bad[0, 0] = -999
        expect_error("RUN_FAILED", "returned 42", m.run, bad, y)

    expect_error("LOAD_FAILED", "cannot load", kiln_rt.Model, "/nonexistent.so")
    print("kiln_rt.py OK")


if __name__ == "__main__":
    main(sys.argv[1])
