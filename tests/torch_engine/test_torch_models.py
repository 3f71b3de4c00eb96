"""Real models under `--engine torch`: the gallery's scripts in docs/gallery/torch/, each
drawn with its cut edges (mechanism and line) and the script's names, and its image current.
"""

from __future__ import annotations

import json
import os
import shlex
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("torch")

import yaml  # noqa: E402 - pre-commit's own dependency
from click.testing import CliRunner  # noqa: E402

from detachviz.cli import cli  # noqa: E402
from detachviz.gradreport import grad_report  # noqa: E402
from detachviz.pipeline import Request, build  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "docs" / "gallery" / "torch"
HOOK_ID = "detachviz-torch-images"


def model(name: str) -> dict:
    """The graph model of a gallery script, nodes by id, as `render -f json` writes it."""
    data, failure = build(str(MODELS / f"{name}.py"), Request(fmt="json", engine="torch"), "json")
    assert failure == ""
    graph = json.loads(data)
    graph["by_id"] = {n["id"]: n for n in graph["nodes"]}
    return graph


def cuts(graph: dict) -> list[tuple]:
    node = graph["by_id"]
    return sorted(
        (node[e["source"]]["kind"], node[e["source"]]["label"], node[e["target"]]["label"],
         e["cut"], e["line"])
        for e in graph["edges"] if e["cut"]
    )  # fmt: skip


def labels(graph: dict, kind: str) -> set[str]:
    return {n["label"] for n in graph["nodes"] if n["kind"] == kind}


def line_of(name: str, text: str) -> int:
    lines = (MODELS / f"{name}.py").read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def test_resnet_block_with_a_linear_probe_on_detached_features():
    g = model("resnet_block")
    line = line_of("resnet_block", "probe(features.detach())")
    # the probe reads the pooled features (named `features`) through detach()
    [(kind, source, target, cut, at)] = cuts(g)
    assert (kind, source, target, cut, at) == ("function", "ViewBackward0", "AddmmBackward0",
                                               "detach", line)  # fmt: skip
    named = {(n["label"], n["name"]) for n in g["nodes"] if n["kind"] == "function"}
    assert {("ViewBackward0", "features"), ("AddmmBackward0", "probe_logits")} <= named
    fns = labels(g, "function")
    assert {"ConvolutionBackward0", "NativeBatchNormBackward0", "AddBackward0",
            "MeanBackward1", "ReluBackward0"} <= fns  # fmt: skip
    assert labels(g, "leaf") >= {"model.stem.weight", "model.block.conv1.weight",
                                 "model.block.bn1.weight", "model.block.bn2.bias",
                                 "model.fc.weight", "probe.weight", "probe.bias"}  # fmt: skip
    assert labels(g, "untracked") == set()  # the probe's cut hides nothing: all is trained


def test_transformer_teacher_under_no_grad_gets_no_gradient():
    g = model("transformer_distill")
    line = line_of("transformer_distill", "target = teacher(")
    found = cuts(g)
    assert found and all(c[3] == "no_grad" and c[4] == line for c in found)
    cut_params = {c[1] for c in found}
    assert {"teacher.self_attn.in_proj_weight", "teacher.linear1.weight",
            "teacher.norm2.bias", "embed.weight"} <= cut_params  # fmt: skip
    assert {c[2] for c in found} == {"embedding", "multi_head_attention_forward", "linear",
                                     "layer_norm"}  # fmt: skip
    assert "teacher.linear1.weight" in labels(g, "untracked")
    assert {"student.self_attn.in_proj_weight", "student.norm2.weight", "embed.weight"} <= (
        labels(g, "leaf")
    )
    target = next(n for n in g["nodes"] if n["name"] == "target")
    assert (target["kind"], target["label"]) == ("untracked", "layer_norm")
    assert "ScaledDotProductFlashAttentionForCpuBackward0" in labels(g, "function")


def test_lstm_language_model_truncates_through_detach():
    g = model("lstm_lm")
    line = line_of("lstm_lm", "s.detach() for s in state")
    # h and c of the previous chunk: two cut edges from its (untracked) history
    assert cuts(g) == [("untracked", "StackBackward0", "TransposeBackward0", "detach", line)] * 2
    assert "MkldnnRnnLayerBackward0" in labels(g, "function") | labels(g, "untracked")
    assert {"model.lstm.weight_ih_l0", "model.lstm.weight_hh_l0", "model.embed.weight",
            "model.out.bias"} <= labels(g, "leaf")  # fmt: skip
    [root] = g["roots"]
    assert g["by_id"][root]["name"] == "loss"


def test_gan_step_has_two_roots_and_the_discriminator_sees_fake_detached():
    g = model("gan_step")
    assert [g["by_id"][r]["name"] for r in g["roots"]] == ["d_loss", "g_loss"]
    line = line_of("gan_step", "D(fake.detach())")
    assert cuts(g) == [("function", "AddmmBackward0", "AddmmBackward0", "detach", line)]
    fake = next(e for e in g["edges"] if e["cut"])
    assert g["by_id"][fake["source"]]["name"] == "fake"
    assert {"G.0.weight", "G.2.bias", "D.0.weight", "D.2.bias"} <= labels(g, "leaf")
    report = grad_report(str(MODELS / "gan_step.py"), engine="torch")
    rows = {r.name: r for r in report.rows}
    assert rows["G.0.weight"].status == "partly-cut"
    assert rows["G.0.weight"].reason.startswith("gradient from g_loss; cut from d_loss by detach()")
    assert rows["D.0.weight"].status == "ok"


def test_frozen_backbone_under_no_grad_cuts_the_layer_meant_to_train():
    g = model("frozen_finetune")
    line = line_of("frozen_finetune", "features = backbone(images)")
    assert cuts(g) == [
        ("untracked", "backbone.2.bias", "conv2d", "no_grad", line),
        ("untracked", "backbone.2.weight", "conv2d", "no_grad", line),
    ]
    # the requires_grad_(False) layer is a constant: not drawn, as torchviz draws none
    assert not any("backbone.0" in n["label"] for n in g["nodes"])
    assert labels(g, "leaf") == {"head.weight", "head.bias"}
    assert Counter(n["kind"] for n in g["nodes"])["output"] == 1
    rows = {r.name: r for r in grad_report(str(MODELS / "frozen_finetune.py"),
                                           engine="torch").rows}  # fmt: skip
    assert rows["backbone.2.weight"].status == "cut"
    assert rows["backbone.2.weight"].reason.startswith(f"only used inside no_grad at line {line}")
    assert rows["head.weight"].status == "ok"


def _hook() -> tuple[list[str], list[str]]:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    [hook] = [h for repo in config["repos"] for h in repo["hooks"] if h["id"] == HOOK_ID]
    entry = shlex.split(hook["entry"])
    assert entry[:2] == ["detachviz", "render"]
    return entry[2:], hook["args"]


def test_every_model_is_drawn_by_the_hook_and_shown_in_the_gallery():
    _, scripts = _hook()
    assert sorted(Path(s).name for s in scripts) == sorted(p.name for p in MODELS.glob("*.py"))
    page = (ROOT / "docs" / "gallery.md").read_text(encoding="utf-8")
    for script in scripts:
        stem = Path(script).stem
        assert f"gallery/torch/{stem}.py" in page and f"images/torch/{stem}.svg" in page


def test_the_gallery_images_are_current():
    options, scripts = _hook()
    old = Path.cwd()
    os.chdir(ROOT)
    try:
        result = CliRunner().invoke(cli, ["render", "--check", *options, *scripts])
    finally:
        os.chdir(old)
    assert result.exit_code == 0, result.stderr
    assert result.stderr.count("current ") == len(scripts)
