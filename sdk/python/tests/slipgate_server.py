# A real slipgate for the tests: `node dist/entry.cjs serve` (run `npm run
# build` in the repository first) on the sandbox network, a fresh SQLite
# database in a temporary folder, free loopback ports, accounts made with
# the CLI. SLIPGATE_ENTRY names another built entry point.
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
ENTRY = Path(os.environ.get("SLIPGATE_ENTRY", ROOT / "dist" / "entry.cjs"))


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Slipgate:
    def __init__(self):
        if not ENTRY.exists():
            raise RuntimeError(f"{ENTRY} is missing: run `npm run build` in {ROOT} first")
        self.dir = tempfile.mkdtemp(prefix="slipgate-python-sdk-")
        port = free_port()
        self.env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:{self.dir}/slipgate.db",
            "DATABASE_CREATE": "yes",
            "PORT": str(port),
            "ADMIN_PORT": "0",
            "PUBLIC_URL": f"http://127.0.0.1:{port}",
            "SECRETS_KEY": "5d" * 32,
            "WEBHOOK_ALLOW_PRIVATE": "true",
            "WEBHOOK_POLL_MS": "20",
            "API_KEY_CACHE_TTL_MS": "0",
            # The first picture loads the decoders in a new thread: slow on a loaded test machine, not a failure.
            "IMAGE_DECODE_TIMEOUT_MS": "60000",
            "LOG_LEVEL": "info",
            "LOG_FORMAT": "json",
        }
        self.proc = subprocess.Popen(["node", str(ENTRY), "serve"], env=self.env, cwd=self.dir, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        for line in self.proc.stdout:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("msg") == "slipgate listening":
                self.url = entry["publicUrl"]
                break
        else:
            raise RuntimeError(f"slipgate exited ({self.proc.wait()}) before listening")
        # Keep reading its log, so a full pipe never blocks it.
        self._drain = threading.Thread(target=lambda: [None for _ in self.proc.stdout], daemon=True)
        self._drain.start()

    def cli(self, *args):
        """One CLI command on this server's database; its stdout."""
        return subprocess.run(["node", str(ENTRY), *args], env=self.env, cwd=self.dir, check=True, capture_output=True, text=True).stdout

    def cli_all(self, *commands):
        """Several CLI commands at once (each is a Node start): their stdouts, in order."""
        procs = [subprocess.Popen(["node", str(ENTRY), *args], env=self.env, cwd=self.dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for args in commands]
        outs = []
        for args, proc in zip(commands, procs):
            out, err = proc.communicate()
            if proc.returncode != 0:
                raise RuntimeError(f"slipgate {' '.join(args)} exited {proc.returncode}: {err}")
            outs.append(out)
        return outs

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self._drain.join(timeout=5)
        shutil.rmtree(self.dir, ignore_errors=True)
