"""doctor's data-dir check sees a lock file that every add would fail on."""

import warnings

from paperdesk.core.config import load_settings


def test_doctor_finds_a_lock_file_that_is_a_folder(tmp_path):
    """Every add fails while write.lock is a folder: doctor says so, with the fix."""
    from paperdesk.core.library.health import PROBLEM, check_data_dir

    settings = load_settings(environ={"PAPERDESK_HOME": str(tmp_path / "home")}, path=tmp_path / "absent.toml")
    assert check_data_dir(settings).status != PROBLEM
    (tmp_path / "home" / "write.lock").mkdir()
    check = check_data_dir(settings)
    assert check.status == PROBLEM and "is a folder" in check.summary and "move it aside" in check.fix


def test_loading_the_embedder_through_torch_draws_no_progress_bar():
    """transformers' own "Loading weights" bar landed in doctor's output when the ONNX model was first
    exported; loading through torch turns it off."""
    from transformers.utils import logging as hf_logging

    from paperdesk.core.search.hf_quiet import quiet_transformers

    with warnings.catch_warnings():
        # a test that loaded the embedder earlier in this process set HF_HUB_DISABLE_PROGRESS_BARS, and the hub
        # then refuses (with a warning) to turn its own bars on; transformers' bar, under test, is on either way
        warnings.filterwarnings("ignore", message="Cannot enable progress bars")
        hf_logging.enable_progress_bar()
    assert hf_logging.is_progress_bar_enabled()
    quiet_transformers()
    assert not hf_logging.is_progress_bar_enabled()
