"""nbgrader preprocessors of our own, used through nbgrader_config.py and ``autograder grade``."""
from __future__ import annotations

import traceback

import jsonschema
from jinja2.bccache import BytecodeCache
from jupyter_core.utils import run_sync
from nbclient.exceptions import DeadKernelError
from nbconvert.exporters import HTMLExporter
from nbformat import NotebookNode
from nbgrader import utils
from nbgrader.nbgraderformat import ValidationError
from nbgrader.nbgraderformat.common import BaseMetadataValidator, SchemaTooNewError, SchemaTooOldError
from nbgrader.nbgraderformat.v3 import MetadataValidatorV3
from nbgrader.preprocessors import CheckCellMetadata, DeduplicateIds, Execute, NbGraderPreprocessor

from . import messages


class ConciseTestErrors(NbGraderPreprocessor):
    """Reduce the traceback of a failed test cell to its last line, ``AssertionError: <diagnosis>``.

    An IPython traceback quotes the lines around the failing call, hidden tests included
    (nbgrader's ClearHiddenTests clears the cell's source, not its outputs). The
    assertion message is the feedback; the quoted code is noise at best and a leak at worst.
    """

    def preprocess_cell(self, cell, resources, index):
        if utils.is_grade(cell):
            for output in cell.get("outputs", []):
                if output.output_type == "error":
                    output.traceback = [f"{output.ename}: {output.evalue}"]
        return cell, resources


class SafeDeduplicateIds(DeduplicateIds):
    """nbgrader's DeduplicateIds, fixed: a duplicated cell becomes an ordinary cell.

    nbgrader empties the nbgrader metadata of the second cell with a grade id, which
    CheckCellMetadata then rejects ("Outdated schema version: 0") and OverwriteCells
    (with ``add_missing_cells``) trips over (KeyError 'grade_id'): the whole notebook
    failed and a student who copied a cell lost every point. Removing the metadata
    altogether keeps the copy as plain student code.
    """

    def preprocess_cell(self, cell, resources, cell_index):
        if utils.is_grade(cell) or utils.is_solution(cell) or utils.is_locked(cell):
            grade_id = cell.metadata.nbgrader["grade_id"]
            if grade_id in self.grade_ids:
                self.log.warning("Cell with id '%s' exists multiple times!", grade_id)
                del cell.metadata["nbgrader"]
            else:
                self.grade_ids.add(grade_id)
        return cell, resources


class _CompiledTemplates(BytecodeCache):
    """Compiled Jinja templates kept in memory, for the life of the process. Jinja checks
    each template's source checksum before using its entry, so an edited template is
    compiled again."""

    def __init__(self):
        self.compiled = {}

    def load_bytecode(self, bucket):
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket):
        self.compiled[bucket.key] = bucket.bytecode_to_string()


class FeedbackExporter(HTMLExporter):
    """nbconvert's HTMLExporter, compiling its templates once per process, not once per notebook.

    nbgrader builds a new exporter for every student's feedback, and each new exporter
    parsed and compiled the nine templates of the feedback page again: a third of the
    time feedback took. The HTML is the same.
    """

    compiled = _CompiledTemplates()

    def _create_environment(self):
        environment = super()._create_environment()
        environment.bytecode_cache = self.compiled
        return environment


class _SchemaCheckedOnce(BaseMetadataValidator):
    """nbgrader's per-cell check against its metadata schema, minus re-validating the schema
    itself each time (``jsonschema.validate`` does): that was nine tenths of the check."""

    _validators: dict = {}

    def validate_cell(self, cell) -> None:
        if "nbgrader" not in cell.metadata:
            return
        schema = cell.metadata["nbgrader"].get("schema_version", 0)
        if schema < self.schema_version:
            raise SchemaTooOldError(f"Outdated schema version: {schema} (expected {self.schema_version})",
                                    schema, self.schema_version)
        if schema > self.schema_version:
            raise SchemaTooNewError(f"Schema version is too new: {schema} (expected {self.schema_version})",
                                    schema, self.schema_version)
        if self.schema_version not in self._validators:
            self._validators[self.schema_version] = jsonschema.validators.validator_for(self.schema)(self.schema)
        error = jsonschema.exceptions.best_match(
            self._validators[self.schema_version].iter_errors(cell.metadata["nbgrader"]))
        if error is not None:
            raise error


class _MetadataValidator(MetadataValidatorV3, _SchemaCheckedOnce):
    """nbgrader's current metadata validator, all its checks, on top of _SchemaCheckedOnce."""


class FastCheckCellMetadata(CheckCellMetadata):
    """nbgrader's CheckCellMetadata with the same checks and errors, 15 times faster: it ran
    twice per notebook and was a sixth of a worker's share of autograding."""

    def preprocess(self, nb, resources):
        try:
            _MetadataValidator().validate_nb(nb)
        except ValidationError:
            self.log.error(traceback.format_exc())
            msg = "Notebook failed to validate; the nbgrader metadata may be corrupted."
            self.log.error(msg)
            raise ValidationError(msg)
        return nb, resources


class ResilientExecute(Execute):
    """nbgrader's Execute, except that a cell that kills or hangs the kernel costs only itself.

    When the kernel dies during a cell (``os._exit``, a segfault, the memory cap) or stops
    answering after a timed-out cell, the cell gets an error output saying so, a fresh
    kernel is started, the cells that ran before are replayed silently to rebuild the
    state, and execution goes on with the next cell. Plain Execute fails the whole
    notebook instead, and the student loses every point of it.
    """

    probe_timeout = 5  # seconds a live kernel has to answer kernel_info after a timeout

    def preprocess(self, nb, resources=None, km=None):
        self._ran_ok: list = []
        return super().preprocess(nb, resources, km)

    def preprocess_cell(self, cell, resources, index):
        try:
            cell, resources = super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            self._record(cell, "kernel_died")
            self._restart_and_replay()
            return cell, self.resources
        if self._timed_out(cell) and not self._kernel_answers():
            self._record(cell, "kernel_unresponsive")
            self._restart_and_replay()
        elif cell.cell_type == "code" and not any(o.output_type == "error" for o in cell.get("outputs", [])):
            self._ran_ok.append(cell.source)
        return cell, self.resources

    @staticmethod
    def _timed_out(cell) -> bool:
        return any(o.output_type == "error" and o.get("ename") == "CellTimeoutError"
                   for o in cell.get("outputs", []))

    def _kernel_answers(self, timeout: float | None = None) -> bool:
        """Does the kernel answer a kernel_info request within ``timeout`` seconds?"""
        return self._shell_reply(self.kc.kernel_info(), timeout or self.probe_timeout)

    def _record(self, cell, key: str) -> None:
        text = messages.text(f"grading.{key}")
        cell.outputs.append(NotebookNode(output_type="error", ename="KernelDied" if key == "kernel_died"
                                         else "KernelUnresponsive", evalue=text,
                                         traceback=[text]))

    def _restart_and_replay(self) -> None:
        run_sync(self.km.restart_kernel)(now=True)
        self._nudge()
        for source in self._ran_ok:
            msg_id = self.kc.execute(source, silent=True, store_history=False)
            self._shell_reply(msg_id, self.timeout)
        self._drain_iopub()

    def _shell_reply(self, msg_id: str, timeout: float) -> bool:
        """Wait for the reply to one request on the shell channel (which never drops messages)."""
        try:
            while True:
                reply = run_sync(self.kc.get_shell_msg)(timeout=timeout)
                if reply["parent_header"].get("msg_id") == msg_id:
                    return True
        except Exception:  # queue.Empty: no reply in time
            return False

    def _nudge(self, attempts: int = 120) -> None:
        """After a restart, repeat kernel_info until an IOPub message arrives: ZeroMQ drops
        IOPub messages sent before the subscription reconnects, and nbclient must not
        wait for an output that was dropped."""
        for _ in range(attempts):
            msg_id = self.kc.kernel_info()
            self._shell_reply(msg_id, 5)
            try:
                run_sync(self.kc.get_iopub_msg)(timeout=0.5)
                return
            except Exception:
                continue

    def _drain_iopub(self) -> None:
        while True:
            try:
                run_sync(self.kc.get_iopub_msg)(timeout=0.2)
            except Exception:
                return
