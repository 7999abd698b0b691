"""The reference checks' verdicts as the session logs print them: the JSON that
scripts/reference/*_torch.py writes, read back into lines a person scans."""


def dynunet_selftest(s):
    return ("== selftest (CPU, tiny fixture): pass %s, names match params.cpp %s, loss vs float64 rel "
            "%.2g" % (s["pass"], s["names_match_params_cpp"], s["fixture"]["loss_vs_float64_rel"]))


def dynunet_check(c, size, backend="opencl"):
    """The arbiter's verdict, each comparison's summary, PyTorch fp32 against float64, the losses."""
    lines = ["== %s: stagebench (%s, %s) against PyTorch, %d steps; verdict from %s: pass %s %s"
             % (size, backend, c["config"]["stage"], c["steps"], c["verdict_from"], c["pass"],
                "; ".join(c["failures"]))]
    for name, r in c["comparisons"].items():
        s = r["summary"]
        lines.append(
            "   %-12s%s loss rel diff %.3g | parameters 1 - cosine %.3g, rel L2 %.3g | step-0 "
            "gradients 1 - cosine %.3g, rel L2 %.3g, worst tensor %.3g (%s) | within tolerances %s"
            % (name, " (arbiter)" if name == c["verdict_from"] else " (beside) ",
               s["max_rel_loss_diff"], 1 - s["param_cosine"], s["param_rel_l2"],
               1 - s["grad_cosine"], s["grad_rel_l2"], s["grad_max_tensor_rel_l2"],
               s["grad_max_rel_l2_tensor"], r["within_tolerances"]))
    y = c.get("torch_fp32_vs_float64")
    if y:
        lines.append("   PyTorch fp32 against its own float64 run: loss rel diff %.3g, parameters rel L2 "
                     "%.3g, step-0 gradients rel L2 %.3g (worst tensor %.3g)"
                     % (y["max_rel_loss_diff"], y["param_rel_l2"], y["grad_rel_l2"],
                        y["grad_max_tensor_rel_l2"]))
    nan = float("nan")
    for r in c["comparisons"][c["verdict_from"]]["loss"]:
        lines.append("   step %d  loss %.7f / %.7f  dice %.7f / %.7f  bce %.7f / %.7f"
                     % (r["step"], r["stagebench"], r["torch"], r.get("dice_stagebench", nan),
                        r.get("dice_torch", nan), r.get("bce_stagebench", nan),
                        r.get("bce_torch", nan)))
    return "\n".join(lines)


def deepfm_check(c, size):
    return ("== %s: stagebench (opencl, baseline) vs PyTorch, %d steps: max rel loss diff %.3g, "
            "parameter cosine %.9f, max abs %.3g, pass %s"
            % (size, c["steps"], c["max_rel_loss_diff"], c["overall_cosine"], c["overall_max_abs"],
               c["pass"]))
