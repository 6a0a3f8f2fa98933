import socket

import pytest

from companion.app import launch


def test_port_out_of_range_is_refused(capsys):
    assert launch.main(["--web", "--port", "70000"]) == 2
    assert "between 0 and 65535" in capsys.readouterr().err


def test_port_without_web_is_refused(capsys):
    assert launch.main(["--port", "8000"]) == 2
    assert "only apply with --web" in capsys.readouterr().err


def test_port_in_use_is_reported_before_serving(capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert launch.main(["--web", "--host", "127.0.0.1", "--port", str(port)]) == 1
    err = capsys.readouterr().err
    assert f"port {port} is already in use" in err and f"--port {port + 1}" in err


def test_check_port_free_and_foreign_address():
    port = launch.free_port()
    assert launch.check_port("127.0.0.1", port) is None
    assert "not an address of this machine" in launch.check_port("203.0.113.77", port)


def test_web_addresses_print_the_lan_address_first():
    urls = launch.web_addresses("0.0.0.0", 8550)
    assert urls[0] == f"http://{launch.lan_ip()}:8550/"
    assert "http://127.0.0.1:8550/" in urls
    assert launch.web_addresses("127.0.0.1", 9000) == ["http://127.0.0.1:9000/"]


def test_lan_ip_is_an_ipv4_address():
    ip = launch.lan_ip()
    assert len(ip.split(".")) == 4 and all(0 <= int(x) <= 255 for x in ip.split("."))


def test_data_dir_option_is_created_and_exported(tmp_path, monkeypatch, capsys):
    target = tmp_path / "my games"
    served = {}
    monkeypatch.setattr(launch, "serve_web", lambda host, port: served.update(host=host, port=port) or 0)
    assert launch.main(["--web", "--data-dir", str(target)]) == 0
    import os

    assert target.is_dir() and os.environ["ENCYCLOPEDIA_DATA_DIR"] == str(target.resolve())
    assert served == {"host": launch.DEFAULT_WEB_HOST, "port": launch.DEFAULT_PORT}


def test_no_display_falls_back_to_web(monkeypatch, capsys):
    monkeypatch.setattr(launch, "has_display", lambda: False)
    calls = []
    monkeypatch.setattr(launch, "serve_web", lambda host, port: calls.append((host, port)) or 0)
    monkeypatch.setattr(launch, "open_window", lambda: pytest.fail("no window without a display"))
    assert launch.main([]) == 0
    assert calls == [(launch.DEFAULT_WEB_HOST, launch.DEFAULT_PORT)]
    assert "no display found" in capsys.readouterr().err


def test_display_opens_the_window(monkeypatch):
    monkeypatch.setattr(launch, "has_display", lambda: True)
    monkeypatch.setattr(launch, "open_window", lambda: 0)
    monkeypatch.setattr(launch, "serve_web", lambda h, p: pytest.fail("should open a window"))
    assert launch.main([]) == 0


def test_python_m_companion_app_is_the_app_command():
    import subprocess
    import sys

    from tests_app_paths import REPO

    r = subprocess.run([sys.executable, "-m", "companion.app", "--help"], capture_output=True, text=True,
                       cwd=REPO, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "usage: encyclopedia" in r.stdout and "--web" in r.stdout


def test_python_m_companion_keeps_score_and_simulate_and_names_the_app_command(capsys):
    import ast
    import inspect

    import companion.__main__ as cli

    for argv in ([], ["--web"], ["play"]):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert "score" in err and "simulate" in err
        assert "encyclopedia" in err and "python -m companion.app" in err
    tree = ast.parse(inspect.getsource(cli))
    imported = [n.module if isinstance(n, ast.ImportFrom) else a.name
                for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                for a in n.names]
    assert not [m for m in imported if m and m.startswith("companion.app")]


def test_the_served_assets_folder_is_the_apps():
    from pathlib import Path

    assets = Path(launch.web_app_options()["assets_dir"])
    assert assets.is_dir() and (assets / "i18n" / "en.json").is_file()
