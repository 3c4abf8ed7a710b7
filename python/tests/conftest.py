"""Fixtures for the plexa package's tests. Run through ctest
(plexa_python_tests), which sets PYTHONPATH to the build tree's package,
PLEXA_PLUGIN_PATH to its plugins and the example custom-call libraries'
paths; by hand:

  PYTHONPATH=build/release/python python3 -m pytest -q python/tests
"""
import os

import pytest

import plexa


def _example_library(env, name):
    path = os.environ.get(env)
    if path:
        return path
    # The build tree this package was built in: <build>/bin/plugins.
    from plexa import _build_paths
    build = os.path.dirname(os.path.dirname(_build_paths.PLUGIN_DIRS[0]))
    return os.path.join(build, "examples", "custom_call", name)


@pytest.fixture(scope="session")
def cpu():
    return plexa.load_plugin("cpu")


@pytest.fixture(scope="session")
def reference():
    return plexa.load_plugin("reference")


@pytest.fixture(scope="session")
def client(cpu):
    return cpu.client()


@pytest.fixture(scope="session", params=["cpu", "reference"])
def any_client(request):
    return plexa.load_plugin(request.param).client()


@pytest.fixture(scope="session")
def custom_calls_library():
    path = _example_library("PLEXA_EXAMPLE_CUSTOM_CALLS",
                            "libplexa_example_custom_calls.so")
    assert os.path.exists(path), f"build plexa_example_custom_calls ({path})"
    return path


@pytest.fixture(scope="session")
def typed_scale_library():
    path = _example_library("PLEXA_EXAMPLE_TYPED_SCALE",
                            "libplexa_example_typed_scale.so")
    assert os.path.exists(path), f"build plexa_example_typed_scale ({path})"
    return path


SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
