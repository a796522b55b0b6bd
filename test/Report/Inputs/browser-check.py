#!/usr/bin/env python3
"""Loads a report in headless Chromium and checks it as a person would use it.

Drives Debian's chromium over the DevTools protocol with the standard library
only (a minimal WebSocket client below), so the test needs no download. It
prints one line per finding for FileCheck:

  console errors: N            exceptions, console.error and error log entries
  visible charts: N            chart variants shown at once (must be 1)
  points: N                    markers in the shown chart
  series: N                    distinct series among them
  legend: NAME (N points), ... the legend's series
  combined frontier: yes|no    the dashed frontier over every series
  x metric: e2e, moved A of B  after clicking the x selector's second button
  y metric: output, moved A of B
  x metric: e2el, moved A of B the third button (median E2E latency)
  log axes: moved A of B       after ticking the log-axes box
  knob rows: N                 rows of the knob table shown
  tooltip: <first line>        after hovering the first point
  screenshot: PATH             a full-page PNG
  frontier conc N: A feasible, B infeasible, tooltip: <first line>
                               with --tune, per SLA frontier of a tuning
                               report (tune.html): its shown points and the
                               tooltip of its first one
  browser processes left: 0

The browser runs in its own session with a fresh profile; every process
whose command line names that profile is killed at the end, whatever
happened, and the count of survivors is reported.
"""
import argparse
import base64
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--force-device-scale-factor=1", "--window-size=1280,900",
         "--remote-debugging-port=0", "--remote-allow-origins=*"]


class WebSocket:
    """Just enough RFC 6455 for the DevTools protocol: text frames, masked
    from the client, with fragmentation and pings handled."""

    def __init__(self, url):
        assert url.startswith("ws://")
        hostport, path = url[5:].split("/", 1)
        host, port = hostport.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                   "Sec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(request.encode())
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("websocket handshake: connection closed")
            response += chunk
        head, self.buffer = response.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError("websocket handshake refused: " + head.decode(errors="replace"))

    def _read(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("websocket closed")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def send(self, text, opcode=1):
        payload = text.encode() if isinstance(text, str) else text
        header = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def receive(self):
        message = b""
        while True:
            b0, b1 = self._read(2)
            opcode, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            payload = self._read(n)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if opcode == 9:
                self.send(payload, opcode=10)
                continue
            if opcode == 8:
                raise RuntimeError("websocket closed by the browser")
            message += payload
            if b0 & 0x80:
                return message.decode()


class Page:
    def __init__(self, ws):
        self.ws = ws
        self.next_id = 0
        self.events = []

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.receive())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for i, event in enumerate(self.events):
                if event.get("method") == method:
                    return self.events.pop(i)
            self.events.append(json.loads(self.ws.receive()))
        raise RuntimeError(f"timed out waiting for {method}")

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"evaluate: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, x, y):
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left",
                      clickCount=1)

    def console_errors(self):
        errors = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                errors.append(params["exceptionDetails"].get("text", "exception"))
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                errors.append(" ".join(str(a.get("value", a.get("description", "")))
                                       for a in params.get("args", [])))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                errors.append(params["entry"].get("text", ""))
        return errors


POINTS = """(() => {
  const svg = [...document.querySelectorAll('figure.pareto svg.chart')]
      .filter(s => getComputedStyle(s).display !== 'none');
  const pts = svg.length ? [...svg[0].querySelectorAll('.point')] : [];
  return {charts: svg.length, x: svg.length ? svg[0].dataset.x : '',
          y: svg.length ? svg[0].dataset.y : '',
          points: pts.map(p => { const r = p.getBoundingClientRect();
            return {key: p.dataset.series + ':' + p.dataset.cell,
                    cx: r.x + r.width / 2, cy: r.y + r.height / 2}; })};
})()"""


def button_center(page, name, index):
    return page.evaluate(f"""(() => {{
      const label = document.querySelectorAll('input[name="{name}"]')[{index}].parentElement;
      label.scrollIntoView({{block: 'center'}});
      const r = label.getBoundingClientRect();
      return [r.x + r.width / 2, r.y + r.height / 2];
    }})()""")


def moved(before, after):
    old = {p["key"]: (p["cx"], p["cy"]) for p in before["points"]}
    count = 0
    for p in after["points"]:
        if p["key"] in old and (abs(old[p["key"]][0] - p["cx"]) > 0.5 or
                                abs(old[p["key"]][1] - p["cy"]) > 0.5):
            count += 1
    return count


def profile_processes(profile):
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if profile.encode() in f.read():
                    pids.append(int(entry))
        except OSError:
            pass
    return pids


def check(page, args):
    page.call("Page.enable")
    page.call("Runtime.enable")
    page.call("Log.enable")
    page.call("Page.navigate", url="file://" + os.path.abspath(args.page))
    page.wait_for("Page.loadEventFired")

    before = page.evaluate(POINTS)
    print(f"visible charts: {before['charts']}")
    print(f"points: {len(before['points'])}")
    print(f"series: {len({p['key'].split(':')[0] for p in before['points']})}")

    page.click(*button_center(page, "pareto-x", 1))
    after_x = page.evaluate(POINTS)
    print(f"x metric: {after_x['x']}, moved {moved(before, after_x)} of "
          f"{len(after_x['points'])}")
    print("legend: " + page.evaluate("""[...document.querySelectorAll(
      'figure.pareto .legend-item[data-points]')].map(
        e => e.textContent + ' (' + e.dataset.points + ' points)').join(', ')"""))
    combined = page.evaluate("""(() => {
      const svg = [...document.querySelectorAll('figure.pareto svg.chart')]
          .find(s => getComputedStyle(s).display !== 'none');
      return !!(svg && svg.querySelector('.frontier.combined')); })()""")
    print(f"combined frontier: {'yes' if combined else 'no'}")
    page.click(*button_center(page, "pareto-y", 1))
    after_y = page.evaluate(POINTS)
    print(f"y metric: {after_y['y']}, moved {moved(after_x, after_y)} of "
          f"{len(after_y['points'])}")
    page.click(*button_center(page, "pareto-x", 2))
    after_e2el = page.evaluate(POINTS)
    print(f"x metric: {after_e2el['x']}, moved {moved(after_y, after_e2el)} of "
          f"{len(after_e2el['points'])}")
    page.click(*button_center(page, "pareto-log", 0))
    after_log = page.evaluate(POINTS)
    print(f"log axes: moved {moved(after_e2el, after_log)} of {len(after_log['points'])}")
    # Back to the default view for the tooltip and the screenshot.
    page.click(*button_center(page, "pareto-log", 0))
    page.click(*button_center(page, "pareto-x", 0))
    page.click(*button_center(page, "pareto-y", 0))
    rows = page.evaluate("""[...document.querySelectorAll('.knob-tables [data-view]')]
      .filter(v => !v.hidden).map(v => v.querySelectorAll('tbody tr').length)[0] || 0""")
    print(f"knob rows: {rows}")

    first = page.evaluate("""(() => {
      const p = [...document.querySelectorAll('figure.pareto svg.chart')]
          .find(s => getComputedStyle(s).display !== 'none').querySelector('.point');
      p.scrollIntoView({block: 'center'});
      const r = p.getBoundingClientRect();
      return [r.x + r.width / 2, r.y + r.height / 2];
    })()""")
    page.call("Input.dispatchMouseEvent", type="mouseMoved", x=first[0], y=first[1])
    tip = page.evaluate("""(() => { const t = document.getElementById('tooltip');
      return t.hidden ? '(hidden)' : t.innerText.split('\\n')[0]; })()""")
    print(f"tooltip: {tip}")
    page.call("Input.dispatchMouseEvent", type="mouseMoved", x=1, y=1)

    if args.tune:
        for conc in page.evaluate("""[...document.querySelectorAll('figure.sla-frontier')]
              .map(f => f.dataset.conc)"""):
            sel = f"figure.sla-frontier[data-conc=\"{conc}\"]"
            counts = page.evaluate(f"""(() => {{
              const pts = [...document.querySelectorAll('{sel} .point')]
                  .filter(p => p.getBoundingClientRect().width > 0);
              return [pts.filter(p => p.dataset.feasible === '1').length,
                      pts.filter(p => p.dataset.feasible === '0').length];
            }})()""")
            at = page.evaluate(f"""(() => {{
              const p = document.querySelector('{sel} .point');
              if (!p) return null;
              p.scrollIntoView({{block: 'center'}});
              const r = p.getBoundingClientRect();
              return [r.x + r.width / 2, r.y + r.height / 2];
            }})()""")
            tip = "(no point)"
            if at:
                page.call("Input.dispatchMouseEvent", type="mouseMoved", x=at[0], y=at[1])
                tip = page.evaluate("""(() => { const t = document.getElementById('tooltip');
                  return t.hidden ? '(hidden)' : t.innerText.split('\\n')[0]; })()""")
                page.call("Input.dispatchMouseEvent", type="mouseMoved", x=1, y=1)
            print(f"frontier conc {conc}: {counts[0]} feasible, {counts[1]} infeasible, "
                  f"tooltip: {tip}")

    page.evaluate("window.scrollTo(0, 0)")
    height = page.evaluate("document.documentElement.scrollHeight")
    page.call("Emulation.setDeviceMetricsOverride", width=1280, height=int(height),
              deviceScaleFactor=1, mobile=False)
    shot = page.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
    with open(args.screenshot, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    print(f"screenshot: {args.screenshot}")

    errors = page.console_errors()
    print(f"console errors: {len(errors)}")
    for error in errors:
        print(f"  {error}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--page", required=True)
    parser.add_argument("--screenshot", required=True)
    parser.add_argument("--tune", action="store_true",
                        help="also check the SLA frontiers of a tuning report")
    args = parser.parse_args()

    profile = tempfile.mkdtemp(prefix="arecipe-report-chromium-")
    browser = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    status = 0
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.time() + 60
        while not (os.path.exists(port_file) and open(port_file).read().count("\n") >= 1):
            if browser.poll() is not None or time.time() > deadline:
                raise RuntimeError("chromium did not open its DevTools port")
            time.sleep(0.1)
        port = int(open(port_file).read().split("\n")[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as r:
            targets = [t for t in json.load(r) if t.get("type") == "page"]
        check(Page(WebSocket(targets[0]["webSocketDebuggerUrl"])), args)
    except Exception as error:  # reported, then the browser is still torn down
        print(f"error: {error}")
        status = 1
    finally:
        try:
            os.killpg(browser.pid, signal.SIGTERM)
            browser.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        for _ in range(50):
            left = profile_processes(profile)
            if not left:
                break
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.1)
        print(f"browser processes left: {len(profile_processes(profile))}")
        shutil.rmtree(profile, ignore_errors=True)
    sys.exit(status)


if __name__ == "__main__":
    main()
