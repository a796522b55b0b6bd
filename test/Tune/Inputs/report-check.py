"""Reads OUT/tune.html against OUT/tune.json and prints what the page says,
one fact a line, for FileCheck: the simulation banner and the note in every
section (each with the confirm command of tune.json), the calibration, the
cards, the pruned reasons with their counts, and per concurrency the
frontier's feasible and infeasible points and the rows of the candidates
table, each compared with what tune.json holds.

usage: report-check.py OUT
"""
import html
import json
import re
import sys

out = sys.argv[1]
page = open(out + "/tune.html", encoding="utf-8").read()
tune = json.load(open(out + "/tune.json", encoding="utf-8"))
text = html.unescape(page)

sections = re.findall(r'<section id="([^"]+)"', page)
notes = page.count('<p class="callout sim-note">')
BANNER = '<div class="callout sim-banner"'
WINNER = 'data-winner="1"'
print(f"banner: {page.count(BANNER)}")
print(f"sections: {len(sections)}, with the simulation note: {notes}")
confirm = tune.get("confirm_command", "")
print(f"confirm command in the banner and every note: "
      f"{bool(confirm) and text.count(confirm) == 1 + notes}")
banner = re.search(r'<div class="callout sim-banner".*?</div>', page, re.S).group(0)
print("calibration: " + ("not calibrated" if "not calibrated" in banner else
                         " | ".join(html.unescape(li) for li in re.findall(r"<li>(.*?)</li>", banner))))

cards = dict(re.findall(r'<div class="card-label">(.*?)</div><div class="card-value">(\d+)', page))
tried = sum(1 for c in tune["cells"] for w in ("short_window", "full_window")
            for m in c.get(w, []) if m["status"] not in ("pruned", "unmeasured"))
print(f"cards: cells used {cards['Cells used']} (tune.json {tune['cells_used']}), "
      f"tried {cards['Candidates tried']} (tune.json {tried}), "
      f"pruned {cards['Pruned']} (tune.json {sum(tune['pruned'].values())})")
rows = re.findall(r'<table class="pruned">.*?</table>', page, re.S)
pruned = dict((html.unescape(r), int(n)) for r, n in
              re.findall(r'<tr><td>(.*?)</td><td class="num">(\d+)</td></tr>', rows[0] if rows else ""))
print(f"pruned rows match tune.json: {pruned == tune['pruned']} ({len(pruned)} reasons)")

for cell in tune["cells"]:
    conc = cell["conc"]
    sec = re.search(rf'<section id="conc-{conc}">.*?</section>', page, re.S).group(0)
    fig = re.search(r'<figure class="sla-frontier".*?</figure>', sec, re.S).group(0)
    feas = fig.count('data-feasible="1"')
    infeas = fig.count('data-feasible="0"')
    want_feas = want_infeas = 0
    for w in ("short_window", "full_window"):
        for m in cell.get(w, []):
            if m["status"] == "ok":
                if m.get("meets_sla"):
                    want_feas += 1
                else:
                    want_infeas += 1
    table_rows = sec.count('<tr class="candidate')
    listed = len(cell.get("short_window", [])) + len(cell.get("full_window", []))
    print(f"conc {conc}: frontier as tune.json: {(feas, infeas) == (want_feas, want_infeas)} "
          f"({feas} feasible, {infeas} infeasible); candidate rows as tune.json: "
          f"{table_rows == listed} ({table_rows}); winner ringed {fig.count(WINNER)}")
