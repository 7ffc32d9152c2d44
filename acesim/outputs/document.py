"""A report as files a person opens: its charts and tables staged into a folder, and its Markdown as
one self-contained HTML page (the analysis report and the landscape's report both write through here)."""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

import pandas as pd
from markdown_it import MarkdownIt

# Six significant digits: beyond every interval's precision, and the same text on every platform.
CSV_FLOAT = "%.6g"


def markdown_to_html(lines: list[str], images: dict[str, bytes]) -> str:
    """The report's Markdown as one self-contained HTML page, its charts embedded as data URIs."""
    parser = MarkdownIt("commonmark", {"html": False}).enable("table")

    def image(renderer, tokens, index, options, env):
        token = tokens[index]
        key = Path(str(token.attrGet("src"))).stem
        alt = html.escape(token.content)
        data = base64.b64encode(images[key]).decode("ascii")
        return (f'<figure><img alt="{alt}" src="data:image/png;base64,{data}">'
                f"<figcaption>{alt}</figcaption></figure>")

    parser.add_render_rule("image", image)
    # an image alone on its line is a figure, not a paragraph holding one
    body = re.sub(r"<p>(<figure>.*?</figure>)</p>", r"\1", parser.render("\n".join(lines) + "\n"), flags=re.S)
    style = ("body{font-family:sans-serif;max-width:1320px;margin:2em auto;padding:0 1em;line-height:1.45;font-size:16px}"
             "table{border-collapse:collapse;margin:1em 0;font-size:14px;display:block;overflow-x:auto}"
             "td,th{border:1px solid #ccc;padding:3px 6px}td{white-space:nowrap}"
             "img{max-width:100%}figure{margin:1em 0}")
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>acesim report</title>"
            f"<style>{style}</style></head><body>\n" + body + "</body></html>\n")


def stage_charts_and_tables(staging: Path, figs: dict, t: dict[str, pd.DataFrame]) -> dict[str, bytes]:
    """Write a report's charts (``figures/NAME.png``) and tables (``tables/NAME.csv``) into its staging
    folder; returns each chart's bytes, for the HTML to embed."""
    (staging / "figures").mkdir()
    (staging / "tables").mkdir()
    images = {}
    for name, fig in figs.items():
        path = staging / "figures" / f"{name}.png"
        fig.savefig(path, dpi=110)
        images[name] = path.read_bytes()
    for name, frame in t.items():
        # a concat with an empty frame (no 1-2 bonus under backgammon) leaves object columns, which
        # to_csv would print at full precision
        frame.infer_objects().to_csv(staging / "tables" / f"{name}.csv", index=False, float_format=CSV_FLOAT)
    return images
