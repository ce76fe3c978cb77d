"""Generate the Python protocol code from proto/ (the one command `make proto` runs).

    python scripts/gen_proto.py            # writes into sdk/ (checked in)
    python scripts/gen_proto.py --out DIR  # writes elsewhere (the drift test)

Runs ``python -m grpc_tools.protoc -Iproto --python_out=OUT --pyi_out=OUT
--grpc_python_out=OUT <every .proto under proto/>``, so imports in the output are
``from agent_avenue.v1 import arena_pb2`` with no patching. grpcio-tools is pinned
exactly in pyproject.toml, which keeps the output byte-for-byte reproducible.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "proto"
# Relative to ROOT (protoc runs there), so the printed command reads like the docs.
DEFAULT_OUT = "sdk"


def proto_files() -> list[str]:
    """Every .proto under proto/, relative to it, sorted so the command is stable."""
    return sorted(p.relative_to(ROOT).as_posix() for p in PROTO_DIR.rglob("*.proto"))


def protoc_command(out_dir: Path | str) -> list[str]:
    out = str(out_dir)
    return [
        sys.executable,
        "-m",
        "grpc_tools.protoc",
        "-Iproto",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        *proto_files(),
    ]


def generate(out_dir: Path | str) -> None:
    cmd = protoc_command(out_dir)
    print(" ".join(["python", *cmd[1:]]))
    subprocess.run(cmd, cwd=ROOT, check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="output root (default: sdk/)")
    args = parser.parse_args()
    Path(args.out).mkdir(parents=True, exist_ok=True)
    try:
        generate(args.out)
    except subprocess.CalledProcessError as exc:
        print(f"protoc failed with exit code {exc.returncode}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
