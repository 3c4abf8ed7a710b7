"""Plugins, clients and devices."""
import os

import pytest

import plexa


def test_plugins_lists_the_in_tree_plugins():
    found = {p.name: p.path for p in plexa.plugins()}
    assert "cpu" in found and "reference" in found
    assert found["cpu"].endswith("libplexa_plugin_cpu.so")
    assert os.path.exists(found["reference"])


def test_load_by_name_and_by_path_give_the_same_plugin(cpu):
    by_path = plexa.load_plugin(cpu.path)
    assert by_path is cpu
    assert cpu.name == "cpu"
    assert cpu.abi_version == plexa.ABI_VERSION == (1, 3)


def test_plugin_attributes(cpu, reference):
    a = cpu.attributes
    assert a["name"] == "cpu"
    assert a["platform"] == cpu.platform
    assert "hlo-text" in a["formats"]
    assert "replicas" in a["capabilities"]
    assert reference.attributes["name"] == "reference"
    assert reference.attributes["abi_version"] == (1, 3)


def test_devices_and_their_attributes(cpu):
    c = cpu.client(num_devices=3)
    devices = c.devices
    assert [d.id for d in devices] == [0, 1, 2]
    assert [d.index for d in devices] == [0, 1, 2]
    for d in devices:
        assert isinstance(d.kind, str) and d.kind
        assert d.platform == cpu.platform
        assert isinstance(d.attributes, dict)
        memories = d.memories
        assert memories[0]["kind"] == "device"
    assert "Device(id=1" in repr(devices[1])


def test_missing_plugin_is_not_found():
    with pytest.raises(plexa.NotFoundError) as e:
        plexa.load_plugin("no_such_backend")
    assert e.value.code == "NOT_FOUND"
    assert "libplexa_plugin_no_such_backend.so" in e.value.message
    assert isinstance(e.value, LookupError)
    with pytest.raises(plexa.NotFoundError, match="no such file"):
        plexa.load_plugin("/nonexistent/libplexa_plugin_x.so")


def test_a_library_that_is_not_a_plugin_is_refused(custom_calls_library):
    with pytest.raises(plexa.InvalidArgumentError,
                       match="is not a Plexa plugin"):
        plexa.load_plugin(custom_calls_library)


def test_bad_names_are_invalid_arguments():
    with pytest.raises(plexa.InvalidArgumentError):
        plexa.load_plugin(None)
    with pytest.raises(plexa.InvalidArgumentError, match="empty"):
        plexa.load_plugin("")


def test_unknown_client_option_is_refused_by_the_plugin(cpu):
    with pytest.raises(plexa.InvalidArgumentError) as e:
        cpu.client(no_such_option=1)
    assert "no_such_option" in e.value.message
    with pytest.raises(plexa.InvalidArgumentError, match="client option 'x'"):
        cpu.client(x=[1, 2])
