"""Users' own checkpoints for `scripts/gpu.sh checkpoints` (issue 12): models of shapes no named
size has, saved the way their own libraries save them, and the comparison of our outputs with theirs.
  versions                        torch, the GPU, transformers and enformer-pytorch if installed
  enformer-pytorch X.npy DIR OUT  enformer-pytorch's model (dim 120, depth 2, 5 heads) saved to DIR
                                  with save_pretrained, its outputs on X to OUT
  compare OURS THEIRS             cosine of each of THEIRS' tensors against OURS'
  bert DIR IDS.npy [gelu]         a 3-layer, hidden-96, 3-head BertModel (ReLU unless gelu) to DIR,
                                  and 2 x 77 token ids with a padded cell to IDS.npy"""
import sys


def versions():
    import torch
    print("torch", torch.__version__, torch.cuda.get_device_name())
    for pkg in ("transformers", "enformer_pytorch"):
        try:
            mod = __import__(pkg)
            print(pkg, getattr(mod, "__version__", "installed"))
        except ImportError:
            print(f"{pkg}: not installed")


def enformer_pytorch(x_path, folder, out):
    import numpy as n
    import torch
    from enformer_pytorch import Enformer
    from safetensors.torch import save_file
    torch.manual_seed(3)
    m = Enformer.from_hparams(dim=120, depth=2, heads=5, attn_dim_key=32, num_downsamples=6,
                              dim_divisible_by=12, output_heads=dict(human=40, mouse=24),
                              target_length=-1).eval()
    m.save_pretrained(folder)
    x = torch.nn.functional.one_hot(torch.from_numpy(n.load(x_path)), 4).float()
    with torch.no_grad():
        o = m(x, return_embeddings=True)
    save_file({"human": o[0]["human"].contiguous(), "mouse": o[0]["mouse"].contiguous(),
               "embeddings": o[1].contiguous()}, out)
    print(f"enformer-pytorch saved {folder} and its outputs")


def compare(ours, theirs):
    import torch
    from safetensors.torch import load_file
    a, b = load_file(ours), load_file(theirs)
    for k in b:
        o, r = a[k].double().flatten(), b[k].double().flatten()
        print(f"enformer-pytorch {k}: cosine {torch.nn.functional.cosine_similarity(o, r, dim=0):.8f}")


def bert(folder, ids_path, act="relu"):
    import numpy as n
    from transformers import BertConfig, BertModel
    extra = {} if act == "gelu" else {"hidden_act": act}  # gelu: Hugging Face's default
    cfg = BertConfig(vocab_size=500, hidden_size=96, num_hidden_layers=3, num_attention_heads=3,
                     intermediate_size=192, max_position_embeddings=128, **extra)
    BertModel(cfg, add_pooling_layer=False).save_pretrained(folder)
    r = n.random.default_rng(2)
    ids = r.integers(2, 500, (2, 77))
    ids[1, 50:] = 0
    n.save(ids_path, ids)
    print(f"saved a BertModel (3 layers, hidden 96, 3 heads, vocabulary 500, hidden_act "
          f"{cfg.hidden_act}) to {folder}")


if __name__ == "__main__":
    commands = {"versions": versions, "enformer-pytorch": enformer_pytorch, "compare": compare,
                "bert": bert}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    commands[sys.argv[1]](*sys.argv[2:])
