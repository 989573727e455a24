"""The answer (analysis/recommend.py) as people read it: a short block of plain text
(the end of `run`, the top of report.md) and an HTML section (the top of index.html).
The short form stays within a given width and under about 25 lines; `cipherbench
recommend` prints the long form."""
from __future__ import annotations

import html
import textwrap
from collections import Counter
from collections.abc import Mapping, Sequence

from cipherbench.analysis.constant_time import LEGEND
from cipherbench.analysis.recommend import Answer, Emptier, Excluded, Figure, UseCase
from cipherbench.analysis.versions import VersionGap, headlines_first
from cipherbench.report.markup import md
from cipherbench.results.rules import size_text

#: Runners-up named in the short form, beside any that tie with the fastest.
RUNNERS_UP = 2
#: Runners-up on the report's first screen; the rest one click away.
HTML_SHOWN = 4
HEADLINE = ("The answer: the fastest verified implementation per use case "
            "(MB/s = 10^6 bytes/s; [ ] = the figure's confidence interval; = a tie)")


def mbps(x: float | None) -> str:
    if x is None:
        return "?"
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def interval(f: Figure) -> str:
    return f"[{mbps(f.mb_low)}-{mbps(f.mb_high)}]" if f.mb_low and f.mb_high else ""


def label(f: Figure) -> str:
    """The implementation and primitive, with the build's constant-time mark; a release that
    bundles another library names it ("node-crypto==18.20.4 (OpenSSL 3.0.13+quic) aes-128-gcm")."""
    code = f" ({f.code})" if f.code else ""
    return f"{f.impl}{code} {f.primitive} {f.ct.symbol()}"


def _gap_short(g: VersionGap) -> str:
    """'openssl 3.5.9 (trixie) x2.45 [2.40-2.50] of 3.0.19' (+ the runner where it differs)."""
    via = f", {g.other.runner} runner" if g.runners_differ else ""
    return f"{g.other.code.library} {g.other.code.version} ({g.other.where}{via}) x{g.ratio:.2f}{g.span()} of {g.base.code.version}"


def exclusion_counts(excluded: Sequence[Excluded]) -> str:
    counts = Counter(e.reason.value for e in excluded)
    return ", ".join(f"{n} {reason}" for reason, n in counts.items())


def _fit(items: list[str], lead: str, width: int) -> str:
    """lead + items joined by '; ', as many as fit in width, then '+N more'."""
    line = lead
    for i, item in enumerate(items):
        more = f"; +{len(items) - i} more" if i else f"+{len(items)} more"
        sep = "; " if i else ""
        rest_needed = len(more) if i + 1 < len(items) else 0
        if len(line) + len(sep) + len(item) + rest_needed > width:
            return line + more
        line += sep + item
    return line


#: Lines the short form gives one use case's other versions: one change per library of a
#: release run (Nettle's, Botan's, OpenSSL's ...) takes a line each at 80 to 100 columns.
VERSION_LINES = 3


def _fit_lines(items: list[str], lead: str, width: int, lines: int) -> list[str]:
    """items over at most `lines` lines of `width`, the first led by `lead` and the others
    indented as far; '+N more' on the last where they do not all fit."""
    out: list[str] = []
    indent = " " * len(lead)
    while items and len(out) < lines:
        head = lead if not out else indent
        if len(out) + 1 == lines:
            out.append(_fit(items, head, width))
            break
        line, n = head, 0
        for item in items:
            step = ("; " if n else "") + item
            if len(line) + len(step) + 1 > width and n:  # keep room for the ';' ending the line
                break
            line, n = line + step, n + 1
        items = items[n:]
        out.append(line + (";" if items else ""))
    return out


def short_lines(answers: Sequence[Answer], width: int = 80,
                versions: Mapping[UseCase, Sequence[VersionGap]] | None = None) -> list[str]:
    """At most seven lines per use case, none longer than width. `versions`: what other
    versions of a library measured at each use case's winning point (analysis/versions.py)."""
    lines = [HEADLINE if len(HEADLINE) <= width else "The answer (MB/s; [ ] = the figure's interval; = a tie with it)"]
    for a in answers:
        if a.size is None:
            continue
        best = a.best
        if best is None:
            lines.append(f"{a.spec.title} {a.where()}: no verified candidate")
        else:
            fig = f"{mbps(best.mb_per_s)} ({a.workload.value})"  # the workload named beside the figure
            forms = (f"{a.spec.title} at {size_text(a.size)}: {label(best)} {fig} {interval(best)}",
                     f"{a.spec.title} at {size_text(a.size)}: {label(best)} {fig}",
                     f"{a.spec.title}: {label(best)} {fig}")  # the longest that fits; never cut
            lines.append(next((h for h in forms if len(h) <= width), forms[-1]))
            n_ties = sum(f.ties_best for f in a.ranked)
            shown = [f for i, f in enumerate(a.ranked[1:]) if f.ties_best or i < RUNNERS_UP + n_ties][:8]
            if shown:  # in rank order; "=" marks a tie with the fastest (the intervals overlap)
                lines.append(_fit([f"{'=' if f.ties_best else ''}{label(f)} {mbps(f.mb_per_s)}" for f in shown]
                                  + ([f"{len(a.ranked) - 1 - len(shown)} more"] if len(a.ranked) - 1 > len(shown) else []),
                                  "  then: ", width))
        if a.reference:
            r = a.reference[0]
            lines.append(f"  reference code (not ranked): {label(r)} {mbps(r.mb_per_s)}")
        if a.excluded:
            lines.append(f"  left out: {exclusion_counts(a.excluded)}")
        gaps = (versions or {}).get(a.spec.case) or ()
        if gaps:  # one change per library first, then the others as they fit
            lines += _fit_lines([_gap_short(g) for g in headlines_first(gaps)], "  versions: ", width, VERSION_LINES)
    # the names recommend --case takes: nothing of their kind in the run
    missing = [a.spec.case.value for a in answers if a.size is None and (a.empty is None or a.empty.by is Emptier.KIND)]
    if missing:
        lines.append(_fit(missing, "Nothing timed for: ", width).replace("; ", ", "))
    for a in answers:  # timed, but not where the use case (or the option given) ranks: said why
        if a.size is None and a.empty is not None and a.empty.by is not Emptier.KIND:
            lines.append(f"{a.spec.case.value}: {a.empty.text()}")
    if any(a.ranked for a in answers):
        lines.append(LEGEND)
    return [w for line in lines for w in _wrapped(line, width)]


def _wrapped(line: str, width: int) -> list[str]:
    """A line of the short form within `width`: broken between words, never inside a name
    (implementation names hold hyphens) or a figure, the rest indented past its own indent."""
    if len(line) <= width:
        return [line]
    indent = " " * (len(line) - len(line.lstrip(" ")) + 2)
    return textwrap.wrap(line, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)


# ---------------------------------------------------------------------------- HTML
def _fig_html(f: Figure) -> str:
    tie = " <span class=tie>tie</span>" if f.ties_best else ""
    ct = f"<span class=ct title='{html.escape(f.ct.short(), quote=True)}'>{f.ct.symbol()}</span>"
    return (f"<code>{html.escape(f.impl)}</code> {html.escape(f.primitive)} {ct} "
            f"<b>{mbps(f.mb_per_s)}</b>&nbsp;MB/s <span class=ci>{interval(f)}</span>{tie}")


def html_section(answers: Sequence[Answer], versions: Mapping[UseCase, Sequence[VersionGap]] | None = None) -> str:
    """The answer as the first section of index.html: one line per use case, runners-up
    and exclusions in a collapsed list."""
    rows = []
    for a in answers:
        title = html.escape(a.spec.title)
        if a.size is None:
            continue
        best = _fig_html(a.best) if a.best else "<span class=dim>no verified candidate</span>"
        others = [_fig_html(f) for f in a.ranked[1:]]
        detail = []
        if others:
            detail.append("runners-up: " + "; ".join(others[:HTML_SHOWN]))
        if len(others) > HTML_SHOWN:
            ties = sum(f.ties_best for f in a.ranked[1 + HTML_SHOWN:])
            detail.append(f"<details><summary>{len(others) - HTML_SHOWN} more ranked"
                          f"{f', {ties} of them tied with the fastest' if ties else ''}</summary>"
                          + "; ".join(others[HTML_SHOWN:]) + "</details>")
        if a.reference:
            detail.append("reference code (not ranked): " + "; ".join(_fig_html(f) for f in a.reference[:2]))
        gaps = (versions or {}).get(a.spec.case) or ()
        if gaps:
            detail.append("other versions here: " + "; ".join(html.escape(g.text()) for g in gaps))
        if a.excluded:
            items = "".join(f"<li><code>{html.escape(e.impl)}</code> {html.escape(e.primitive)}: "
                            f"{html.escape(e.reason.value)}{(' (' + html.escape(e.detail) + ')') if e.detail else ''}"
                            "</li>" for e in a.excluded)
            detail.append(f"<details><summary>left out: {html.escape(exclusion_counts(a.excluded))}</summary>"
                          f"<ul>{items}</ul></details>")
        rows.append(f"<tr><th>{title}<br><span class=dim>{html.escape(a.where())}</span></th><td>{best}</td>"
                    f"<td class=detail>{'<br>'.join(detail)}</td></tr>")
    missing = [f"{html.escape(a.spec.title)} ({html.escape(a.spec.window())})" for a in answers if a.size is None]
    if missing:
        rows.append(f"<tr><th>Not in this run</th><td colspan=2 class=dim>nothing timed for: {'; '.join(missing)}"
                    "</td></tr>")
    return (f"<section id=answer><h2>The answer</h2><p class=dim>{html.escape(HEADLINE.split(': ', 1)[1])}. Ranked: verified "
            f"libraries only; two tie when their intervals overlap. {html.escape(LEGEND)}.</p>"
            f"<table class=answer>{''.join(rows)}</table></section>")


def markdown_lines(answers: Sequence[Answer], versions: Mapping[UseCase, Sequence[VersionGap]] | None = None) -> list[str]:
    out = ["## The answer", "", HEADLINE + ". Two tie when their intervals overlap. " + LEGEND + ".", "",
           "| use case | size | fastest verified | MB/s | interval | runners-up | left out |",
           "|---|---:|---|---:|---|---|---|"]
    for a in answers:
        if a.size is None:
            out.append(f"| {a.spec.title} | {a.spec.window()} | not timed | | | | |")
            continue
        b = a.best
        ups = "; ".join(f"{label(f)} {mbps(f.mb_per_s)}{' (tie)' if f.ties_best else ''}"
                        for f in a.ranked[1:1 + HTML_SHOWN])
        if len(a.ranked) > 1 + HTML_SHOWN:
            ups += f"; {len(a.ranked) - 1 - HTML_SHOWN} more"
        if a.reference:
            ups += ("; " if ups else "") + f"reference {a.reference[0].primitive} {mbps(a.reference[0].mb_per_s)} (not ranked)"
        out.append(f"| {a.spec.title} | {a.where()} | {md(label(b)) if b else 'none verified'} | "
                   f"{mbps(b.mb_per_s) if b else ''} | {interval(b) if b else ''} | {md(ups)} | "
                   f"{exclusion_counts(a.excluded)} |")
    out.append("")
    gaps = [(a.spec.title, g) for a in answers for g in (versions or {}).get(a.spec.case) or ()]
    if gaps:
        out += ["Other versions of a library, timed at the same point on this host:", ""]
        out += [f"- {title}: {md(g.text())}" for title, g in gaps] + [""]
    return out
