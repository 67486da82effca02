"""tools/ptx_diff.py --caches: two Triton cache folders compared kernel by kernel, debug information aside."""

import importlib.util
import os

_TOOL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools", "ptx_diff.py")
_spec = importlib.util.spec_from_file_location("ptx_diff", _TOOL)
ptx_diff = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ptx_diff)

CODE = ".visible .entry {name}()\n{{\n\tmov.u32 %r1, {k};\n\tret;\n}}\n"


def _cache(root, kernels):
    """A Triton-like cache: one hash folder a compiled kernel, holding NAME.ptx (with a file path and line
    directives that differ run to run) and NAME.json."""
    for i, (name, k, path) in enumerate(kernels):
        d = root / f"hash{i:03d}"
        d.mkdir(parents=True)
        (d / f"{name}.ptx").write_text(f'.file 1 "{path}"\n\t.loc 1 {10 + i} 0\n' + CODE.format(name=name, k=k))
        (d / f"{name}.json").write_text("{}")


def test_same_code_from_another_tree_is_alike(tmp_path, capsys):
    _cache(tmp_path / "a", [("fwd", 1, "/old/src/f.py"), ("fwd", 2, "/old/src/f.py"), ("bwd", 3, "/old/b.py")])
    _cache(tmp_path / "b", [("bwd", 3, "/new/b.py"), ("fwd", 2, "/new/src/f.py"), ("fwd", 1, "/new/src/f.py")])
    assert ptx_diff.compare_caches(str(tmp_path / "a"), str(tmp_path / "b")) == 0
    assert "2 kernels alike, 0 differ" in capsys.readouterr().out


def test_a_changed_or_missing_specialisation_differs(tmp_path, capsys):
    _cache(tmp_path / "a", [("fwd", 1, "x"), ("fwd", 2, "x"), ("bwd", 3, "x")])
    _cache(tmp_path / "b", [("fwd", 1, "x"), ("fwd", 5, "x")])
    assert ptx_diff.compare_caches(str(tmp_path / "a"), str(tmp_path / "b")) == 1
    out = capsys.readouterr().out
    assert "fwd: PTX DIFFERS (2 before, 2 after, 1 alike)" in out
    assert "bwd: PTX DIFFERS (1 before, 0 after, 0 alike)" in out


def test_empty_caches_say_so(tmp_path, capsys):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert ptx_diff.compare_caches(str(tmp_path / "a"), str(tmp_path / "b")) == 2
    assert "TRITON_CACHE_DIR" in capsys.readouterr().out


def test_the_benchmarks_rows_record_their_kernels_without_a_gpu():
    """--bench's enumeration: every benchmark row's forward and backward, recorded as on an H200, name the Gluon
    kernels the rows run (the 192 / 128 one among them) and each specialisation once."""
    import sys

    sys.path.insert(0, os.path.dirname(_TOOL))
    specs = ptx_diff.bench_specs(["bf16"])
    kernels = {ln.kernel for ln in specs.values()}
    assert {"attention_fwd_gluon_kernel", "attention_bwd_gluon_kernel", "attention_bwd_gluon_192_kernel",
            "attention_bwd_preprocess_kernel"} <= kernels
    assert len(specs) == len({ln.key() for ln in specs.values()})
