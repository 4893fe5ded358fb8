#!/usr/bin/env python3
"""Checks a `kiln` tuning report (one HTML page) in headless Chromium.

    check_report.py REPORT.html OUT_DIR

1. Loads the page with --dump-dom and fails if Chromium logged any console
   message (the page logs nothing when it works; this Chromium reports even
   console.error at INFO level, so the level cannot tell errors apart) or an
   uncaught exception, or if the DOM lacks data-rendered="N" with N >= 2
   (set by the page's script to its number of SVG plots).
2. Takes a screenshot OUT_DIR/report.png at 1280x2400 and checks that it is a
   PNG larger than 10 KB (a blank page compresses to far less).

Waits up to 10 minutes for /usr/bin/chromium in case it is still being
installed. Exit status 0 on success, 1 on a failed check, 2 on bad usage.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

CHROMIUM_TIMEOUT_S = 120
WAIT_FOR_CHROMIUM_S = 600
MIN_PNG_BYTES = 10 * 1024


def fail(message):
    print(f"check_report: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def find_chromium():
    deadline = time.monotonic() + WAIT_FOR_CHROMIUM_S
    announced = False
    while True:
        path = shutil.which("chromium") or (
            "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None)
        if path:
            return path
        if time.monotonic() >= deadline:
            fail(f"no chromium binary after waiting {WAIT_FOR_CHROMIUM_S} s")
        if not announced:
            print("check_report: waiting for chromium to be installed...", file=sys.stderr)
            announced = True
        time.sleep(5)


def run_chromium(chromium, args):
    """Runs chromium with a throwaway profile; returns (stdout, stderr)."""
    with tempfile.TemporaryDirectory(prefix="check-report-profile-") as profile:
        cmd = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
               "--enable-logging=stderr", "--v=0", f"--user-data-dir={profile}"] + args
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                                  timeout=CHROMIUM_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            fail(f"chromium took over {CHROMIUM_TIMEOUT_S} s: {' '.join(cmd)}")
        if proc.returncode != 0:
            fail(f"chromium exited with {proc.returncode}:\n{proc.stderr[-4000:]}")
        return proc.stdout, proc.stderr


def console_errors(stderr):
    # Chromium's own noise (dbus, vaapi, ...) is logged at ERROR too, so only
    # lines about the page's console count.
    return [line for line in stderr.splitlines()
            if "CONSOLE" in line or "Uncaught" in line]


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    report, out_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if not os.path.isfile(report):
        fail(f"no report at {report}")
    os.makedirs(out_dir, exist_ok=True)
    chromium = find_chromium()
    url = "file://" + report

    dom, stderr = run_chromium(chromium, ["--dump-dom", url])
    errors = console_errors(stderr)
    if errors:
        fail("the page logged to the console:\n  " + "\n  ".join(errors))
    m = re.search(r'data-rendered="(\d+)"', dom)
    if not m:
        fail('the dumped DOM has no data-rendered="N": the page\'s script did not run')
    if int(m.group(1)) < 2:
        fail(f'data-rendered="{m.group(1)}": expected at least 2 SVG plots')
    print(f"check_report: DOM ok, {m.group(1)} SVG plots, no console messages")

    png = os.path.join(out_dir, "report.png")
    if os.path.exists(png):
        os.remove(png)
    _, stderr = run_chromium(chromium, [f"--screenshot={png}", "--window-size=1280,2400", url])
    errors = console_errors(stderr)
    if errors:
        fail("the page logged to the console:\n  " + "\n  ".join(errors))
    if not os.path.isfile(png):
        fail(f"chromium wrote no screenshot at {png}")
    with open(png, "rb") as f:
        magic = f.read(8)
    if magic != b"\x89PNG\r\n\x1a\n":
        fail(f"{png} is not a PNG")
    size = os.path.getsize(png)
    if size <= MIN_PNG_BYTES:
        fail(f"{png} is only {size} bytes: the page probably rendered blank")
    print(f"check_report: screenshot ok, {png} ({size} bytes)")
    print("check_report: PASS")


if __name__ == "__main__":
    main()
