"""One line a row of the ab192.json files under a directory (tools/ab192.py's): kernel ms new / old, the calls'
ratio, each form against cuDNN, and dQ's and dK's difference between the forms.

    python3 tools/ab192_summary.py DIR
"""

import glob
import json
import os
import sys


def main(root: str) -> None:
    for path in sorted(glob.glob(os.path.join(root, "**", "ab192.json"), recursive=True)):
        for r in json.load(open(path)):
            def kern(name):  # the pass: the 64-key kernel's, or the 128-key one's (stop 41)
                ms = r[name + "_kernels_ms"]
                return ms.get("attention_bwd_gluon_192_kernel", ms.get("attention_bwd_gluon_192_k128_kernel",
                                                                       float("nan")))
            print(f"{os.path.relpath(os.path.dirname(path), root):28s} {r['dtype']:8s} "
                  f"{'causal' if r['causal'] else 'nc':6s} kernel new/old {kern('new'):.4f}/{kern('old'):.4f} "
                  f"call new/old {r['new_over_old']:.4f} vs cuDNN new/old {r['ratio_vs_cudnn_new']:.3f}/"
                  f"{r['ratio_vs_cudnn_old']:.3f} dq {r['dq_rel_new_vs_old']:.1e} dk {r['dk_rel_new_vs_old']:.1e}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
