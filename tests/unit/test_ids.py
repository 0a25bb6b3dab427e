from pathlib import Path

import pytest

from paperdesk.core.errors import InvalidIdError
from paperdesk.core.ids import is_local_id, parse_arxiv_id, path_inside, safe_filename


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2302.07302", "2302.07302"),
        ("2302.07302v1", "2302.07302v1"),
        ("arXiv:2302.07302", "2302.07302"),
        ("ARXIV:2302.07302v3", "2302.07302v3"),
        ("https://arxiv.org/abs/2302.07302v2", "2302.07302v2"),
        ("http://export.arxiv.org/abs/2302.07302", "2302.07302"),
        ("https://arxiv.org/pdf/2302.07302v1.pdf", "2302.07302v1"),
        ("hep-th/9901001v3", "hep-th/9901001v3"),
        ("math.GT/0309136", "math.GT/0309136"),
    ],
)
def test_accepted_forms(text, expected):
    assert str(parse_arxiv_id(text)) == expected


@pytest.mark.parametrize(
    "text", ["", "1234", "../../etc/passwd", "2302.07302/../../x", "2302.07302v0", "https://evil.org/abs/2302.07302"]
)
def test_rejected_forms(text):
    with pytest.raises(InvalidIdError, match="not an arXiv id"):
        parse_arxiv_id(text)


def test_safe_paths_stay_inside(tmp_path: Path):
    for hostile in ["../../etc/passwd", "/etc/passwd", "..", ".", "a/../../b", "x\x00y", "名前/../.."]:
        path = path_inside(tmp_path, hostile)
        assert tmp_path.resolve() in path.parents
        assert "/" not in safe_filename(hostile) and safe_filename(hostile) not in ("", ".", "..")


def test_local_ids():
    assert is_local_id("local-0123456789ab")
    assert not is_local_id("local-../../etc")
