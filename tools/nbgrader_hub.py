"""nbgrader on a shared hub: the exchange folder, everyone's nbgrader config, and the
formgrader for the teacher only. Standard library only; run it with the hub users' Python.

On the hub, once, as root (TLJH: the users' Python is /opt/tljh/user/bin/python)::

    sudo /opt/tljh/user/bin/python tools/nbgrader_hub.py setup

- creates nbgrader's exchange folder (nbgrader 0.9's default,
  ``/usr/local/share/nbgrader/exchange``), writable by everyone (mode 777, as nbgrader
  checks at every release);
- writes ``/etc/jupyter/nbgrader_config.py`` with ``c.Exchange.root``, which every user's
  nbgrader reads (students' *Assignments* panel, the teacher's commands);
- turns the formgrader off for everyone in the users' environment (``jupyter server
  extension disable --sys-prefix``) and removes its menu and the create-assignment tool
  from JupyterLab (``jupyter labextension disable --level=sys_prefix``).

Then, as the teacher (no sudo), once::

    /opt/tljh/user/bin/python tools/nbgrader_hub.py teacher

turns the formgrader on again for that account only, in ``~/.jupyter/
jupyter_server_config.json`` (``jupyter server extension enable --user`` refuses an
extension that is not listed at the user level, so this writes the file itself). Restart
your server (*File → Hub Control Panel → Stop My Server*), then open
``https://<hub>/user/<your-name>/formgrader``: the menu item stays hidden (a plugin disabled
for the environment cannot be turned on again per user). Students keep the *Assignments*
panel (fetch, submit, feedback). ``--exchange`` and ``--config-dir`` choose other folders;
``--dry-run`` prints what would be done.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

EXCHANGE = Path("/usr/local/share/nbgrader/exchange")  # nbgrader 0.9.x's Exchange.root default
CONFIG_DIR = Path("/etc/jupyter")  # in every user's Jupyter config path
TEACHER_ONLY_SERVER = ["nbgrader.server_extensions.formgrader"]
TEACHER_ONLY_LAB = ["@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment"]

GLOBAL_CONFIG = '''\
# Every hub user's nbgrader (students and teacher), written by tools/nbgrader_hub.py setup.
c = get_config()  # noqa: F821
c.Exchange.root = {root!r}
'''


def jupyter(python: str, *args: str) -> list[str]:
    return [python, "-m", "jupyter", *args]


def students_commands(python: str) -> list[list[str]]:
    """The jupyter commands that turn the teacher-only extensions off for everyone using
    the environment of ``python``."""
    commands = [jupyter(python, "server", "extension", "disable", "--sys-prefix", name)
                for name in TEACHER_ONLY_SERVER]
    commands += [jupyter(python, "labextension", "disable", "--level=sys_prefix", name)
                 for name in TEACHER_ONLY_LAB]
    return commands


def teacher(config_dir: Path, dry_run: bool) -> Path:
    """Turn the formgrader on for this account: its user-level jupyter_server_config.json."""
    path = config_dir / "jupyter_server_config.json"
    config = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    extensions = config.setdefault("ServerApp", {}).setdefault("jpserver_extensions", {})
    extensions.update({name: True for name in TEACHER_ONLY_SERVER})
    print(f"{path}: {', '.join(TEACHER_ONLY_SERVER)} enabled for this account")
    if not dry_run:
        config_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    print("Restart your server, then open https://<hub>/user/<your-name>/formgrader")
    return path


def run(command: list[str], dry_run: bool) -> None:
    print("$", " ".join(command))
    if not dry_run:
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def setup(exchange: Path, config_dir: Path, python: str, dry_run: bool) -> None:
    print(f"exchange folder: {exchange} (mode 777)")
    if not dry_run:
        exchange.mkdir(parents=True, exist_ok=True)
        os.chmod(exchange, 0o777)  # everyone writes (nbgrader checks exactly this at release)
    config = config_dir / "nbgrader_config.py"
    print(f"{config}: c.Exchange.root = {str(exchange)!r}")
    if not dry_run:
        config_dir.mkdir(parents=True, exist_ok=True)
        config.write_text(GLOBAL_CONFIG.format(root=str(exchange)), encoding="utf-8")
        os.chmod(config, 0o644)
    for command in students_commands(python):
        run(command, dry_run)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["setup", "teacher"])
    parser.add_argument("--exchange", type=Path, default=EXCHANGE)
    parser.add_argument("--config-dir", type=Path, default=CONFIG_DIR)
    parser.add_argument("--python", default=sys.executable,
                        help="the hub users' Python (default: the one running this)")
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args(argv)
    if args.step == "setup":
        setup(args.exchange, args.config_dir, args.python, args.dry_run)
    else:
        user_dir = os.environ.get("JUPYTER_CONFIG_DIR") or Path.home() / ".jupyter"
        teacher(Path(user_dir), args.dry_run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
