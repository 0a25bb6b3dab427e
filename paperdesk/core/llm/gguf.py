"""Read a GGUF file's metadata (e.g. its chat template) from the header, without loading the model."""

from __future__ import annotations

import mmap
import struct
from pathlib import Path
from typing import Any

from paperdesk.core.errors import ConfigError

_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9


class _Reader:
    def __init__(self, data: Any) -> None:
        self.data, self.pos = data, 0

    def unpack(self, fmt: str) -> Any:
        value = struct.unpack_from(fmt, self.data, self.pos)[0]
        self.pos += struct.calcsize(fmt)
        return value

    def string(self, keep: bool = True) -> str | None:
        size = self.unpack("<Q")
        start, self.pos = self.pos, self.pos + size
        return bytes(self.data[start:self.pos]).decode("utf-8", "replace") if keep else None

    def value(self, kind: int, keep: bool) -> Any:
        if kind == _STRING:
            return self.string(keep)
        if kind == _ARRAY:
            item, count = self.unpack("<I"), self.unpack("<Q")
            if item in _SCALARS and not keep:  # skip fixed-size items in one step
                self.pos += struct.calcsize(_SCALARS[item]) * count
                return None
            if item == _STRING and not keep:  # the vocabulary: hundreds of thousands of strings to step over
                data, pos = self.data, self.pos
                for _ in range(count):
                    pos += 8 + int.from_bytes(data[pos:pos + 8], "little")
                self.pos = pos
                return None
            return [self.value(item, keep) for _ in range(count)]
        if kind not in _SCALARS:
            raise ValueError(f"unknown GGUF value type {kind}")
        return self.unpack(_SCALARS[kind])


def read_metadata(path: Path, keys: set[str]) -> dict[str, Any]:
    """The values of `keys` found in the header of GGUF file `path` (missing keys are left out)."""
    try:
        with path.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
            reader = _Reader(data)
            if bytes(data[:4]) != b"GGUF":
                raise ValueError("no GGUF magic")
            reader.pos = 4
            version = reader.unpack("<I")
            count_fmt = "<I" if version == 1 else "<Q"
            reader.unpack(count_fmt)  # tensor count
            found: dict[str, Any] = {}
            for _ in range(reader.unpack(count_fmt)):
                key = reader.string() or ""
                wanted = key in keys
                value = reader.value(reader.unpack("<I"), wanted)
                if wanted:
                    found[key] = value
                    if len(found) == len(keys):
                        break
            return found
    except (OSError, ValueError, struct.error) as exc:
        raise ConfigError(f"cannot read {path.name} as a GGUF model ({exc}); pick another file") from None
