"""What the documents say works where is what the drivers declare: the
capabilities of vnfm.objects.infra (and the hook methods of the
MgmtDrivers), through tools/support_matrix.py, which writes the generated
tables and reads every Operation and MgmtDriver table back."""

from __future__ import annotations

import dataclasses
import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

from vnfm.objects import states

ROOT = Path(__file__).resolve().parents[3]


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        'support_matrix', ROOT / 'tools/support_matrix.py'
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


support_matrix = _tool()


def test_every_document_agrees_with_the_declarations():
    """README's table, the generated tables and the hand-written ones;
    `.venv/bin/python tools/support_matrix.py` rewrites the first two."""
    assert support_matrix.check(ROOT, support_matrix.declared()) == []


def test_a_driver_that_learns_an_operation_makes_every_table_stale():
    decl = support_matrix.declared()
    openstack = decl.infra_drivers['openstack']
    learnt = dataclasses.replace(
        openstack,
        operations=openstack.operations | {states.LcmOperation.OPERATE},
    )
    changed = dataclasses.replace(
        decl, infra_drivers={**decl.infra_drivers, 'openstack': learnt}
    )
    errors = support_matrix.check(ROOT, changed)
    assert (
        'doc/source/_generated/support-matrix.inc is not what the '
        'declarations generate' in errors
    )
    assert 'README.rst: the table between the markers is stale' in errors
    said = "the table says 'no', the declarations say 'yes'"
    readme = ROOT / 'README.rst'
    page = ROOT / 'doc' / 'source' / 'openstack.rst'
    assert f'{readme}: OPERATE on openstack: {said}' in errors
    assert f'{page}: OPERATE on openstack: {said}' in errors


def test_a_wrong_cell_of_a_hand_written_table_is_named():
    page = """
Title
=====

==================  =============  ================
Operation           ``openstack``  How
==================  =============  ================
``HEAL``            yes            servers replaced
``OPERATE``         yes            through Nova
``CHANGE_FLAVOUR``  no             a stack update
==================  =============  ================
"""
    errors = support_matrix.table_errors(
        page, Path('page'), support_matrix.declared()
    )
    assert errors == [
        "page: OPERATE on openstack: the table says 'yes', the "
        "declarations say 'no'",
        "page: CHANGE_FLAVOUR on openstack: the table says 'no', the "
        "declarations say 'yes'",
    ]


def test_a_mgmt_driver_table_naming_hooks_the_class_lacks_is_refused():
    page = """
======================  ===========================  ==========
MgmtDriver              Runs                         Rolls back
======================  ===========================  ==========
``container_update``    ``modify_information_end``,  none
                        ``heal_end``
``script``              every hook                   none
``helm``                ``instantiate_end``          none
======================  ===========================  ==========
"""
    errors = support_matrix.table_errors(
        page, Path('page'), support_matrix.declared()
    )
    assert errors == [
        'page: container_update runs modify_information_end, not '
        "'modify_information_end, heal_end'",
        "page: container_update rolls back modify_information_end, not 'none'",
        "page: 'helm' is no installed MgmtDriver",
    ]


def test_a_malformed_table_is_named_not_skipped():
    page = """
=========  ====
Operation  ``noop``
=========  ====
``HEAL``   yes
``OPERATE`` yes
=========  ====
"""
    errors = support_matrix.table_errors(
        page, Path('page'), support_matrix.declared()
    )
    assert errors == [
        'page: line 6: Malformed table. Text in column margin in table line 5.'
    ]


def test_writing_puts_the_table_between_readme_markers(tmp_path: Path):
    shutil.copy(ROOT / 'README.rst', tmp_path / 'README.rst')
    readme = tmp_path / 'README.rst'
    start = readme.read_text().index(support_matrix.BEGIN)
    end = readme.read_text().index(support_matrix.END)
    text = readme.read_text()
    readme.write_text(
        text[: start + len(support_matrix.BEGIN)] + '\n\n' + text[end:]
    )
    (tmp_path / 'doc/source').mkdir(parents=True)

    support_matrix.write(tmp_path, support_matrix.declared())

    assert readme.read_text() == text
    generated = tmp_path / support_matrix.OPERATIONS_INC
    assert (
        generated.read_text()
        == (ROOT / support_matrix.OPERATIONS_INC).read_text()
    )
