#!/usr/bin/env bash
# Users' own checkpoints on the device machine (run there from the repository root, a bundle
# carried; SB names its gpu-run.sh, default .gpu/gpu-run.sh): models of shapes no named size has,
# run by stagebench on every backend and checked against PyTorch on the same weights and input.
#   - Enformer dim 120, depth 2, 5 heads (keys 32, values 24), five tower blocks, 40/24 tracks,
#     at 16,384 bp: weights from the reference script, and from enformer-pytorch itself (its
#     save_pretrained folder, config.json included) where that package is installed;
#   - a Hugging Face BertModel of 3 layers, hidden 96, 3 heads, vocabulary 500, saved with
#     save_pretrained (model.safetensors + config.json), with ReLU and with HF's default GELU, at
#     77 tokens with a padded cell, compared with transformers' own BertModel by
#     geneformer_torch.py.
# Everything lands in $1 (default: $OUT).
set -uo pipefail
out="${1:-${OUT:?}}"
sb="${SB:-.gpu/gpu-run.sh}"
ref=scripts/reference
log="$out/checkpoints.txt"
python3 -c "import torch, sys; print('torch', torch.__version__, torch.cuda.get_device_name())" | tee "$log"
for pkg in transformers enformer_pytorch; do
  python3 -c "import $pkg; print('$pkg', getattr($pkg, '__version__', 'installed'))" 2>/dev/null |
    tee -a "$log" || echo "$pkg: not installed" | tee -a "$log"
done

python3 -c "import numpy as n; n.save('/tmp/x16k.npy', n.random.default_rng(1).integers(0, 4, (1, 16384)))"
python3 "$ref/enformer_torch.py" --make-weights /tmp/enf.safetensors --dim 120 --depth 2 --heads 5 \
  --dk 32 --filters 60,72,84,96,108,120 --human 40 --mouse 24 | tee -a "$log"
for backend in opencl cpu; do
  for stage in original graph-compile; do
    echo "== enformer dim 120 / 5 heads / 5 tower blocks, 16,384 bp: stagebench $backend $stage vs reference" | tee -a "$log"
    bash "$sb" infer enformer --backend "$backend" --stage "$stage" --weights /tmp/enf.safetensors \
      --input /tmp/x16k.npy --output "/tmp/enf_$backend.safetensors" 2>&1 | tee -a "$log"
    python3 "$ref/enformer_torch.py" --weights /tmp/enf.safetensors --input /tmp/x16k.npy \
      --check "/tmp/enf_$backend.safetensors" 2>&1 | tee -a "$log"
  done
done

if python3 -c "import enformer_pytorch" 2>/dev/null; then
  python3 - <<'EOF' 2>&1 | tee -a "$log"
import numpy as n, torch
from enformer_pytorch import Enformer
torch.manual_seed(3)
m = Enformer.from_hparams(dim=120, depth=2, heads=5, attn_dim_key=32, num_downsamples=6,
                          dim_divisible_by=12, output_heads=dict(human=40, mouse=24),
                          target_length=-1).eval()
m.save_pretrained("/tmp/ep")
x = torch.nn.functional.one_hot(torch.from_numpy(n.load("/tmp/x16k.npy")), 4).float()
with torch.no_grad():
    o = m(x, return_embeddings=True)
from safetensors.torch import save_file
save_file({"human": o[0]["human"].contiguous(), "mouse": o[0]["mouse"].contiguous(),
           "embeddings": o[1].contiguous()}, "/tmp/ep_out.safetensors")
print("enformer-pytorch saved /tmp/ep and its outputs")
EOF
  bash "$sb" infer enformer --backend opencl --weights /tmp/ep --input /tmp/x16k.npy \
    --output /tmp/ep_ours.safetensors 2>&1 | tee -a "$log"
  python3 - <<'EOF' 2>&1 | tee -a "$log"
import torch
from safetensors.torch import load_file
a, b = load_file("/tmp/ep_ours.safetensors"), load_file("/tmp/ep_out.safetensors")
for k in b:
    o, r = a[k].double().flatten(), b[k].double().flatten()
    print(f"enformer-pytorch {k}: cosine {torch.nn.functional.cosine_similarity(o, r, dim=0):.8f}")
EOF
fi

python3 - <<'EOF' 2>&1 | tee -a "$log"
import numpy as n
from transformers import BertConfig, BertModel
cfg = BertConfig(vocab_size=500, hidden_size=96, num_hidden_layers=3, num_attention_heads=3,
                 intermediate_size=192, hidden_act="relu", max_position_embeddings=128)
BertModel(cfg, add_pooling_layer=False).save_pretrained("/tmp/bert96")
r = n.random.default_rng(2)
ids = r.integers(2, 500, (2, 77))
ids[1, 50:] = 0
n.save("/tmp/bert_ids.npy", ids)
print("saved a BertModel (3 layers, hidden 96, 3 heads, vocabulary 500) to /tmp/bert96")
EOF
# The same shapes with Hugging Face's default activation (hidden_act "gelu", exact).
python3 - <<'EOF' 2>&1 | tee -a "$log"
from transformers import BertConfig, BertModel
cfg = BertConfig(vocab_size=500, hidden_size=96, num_hidden_layers=3, num_attention_heads=3,
                 intermediate_size=192, max_position_embeddings=128)
BertModel(cfg, add_pooling_layer=False).save_pretrained("/tmp/bert96gelu")
print("saved a BertModel with hidden_act", cfg.hidden_act, "to /tmp/bert96gelu")
EOF
for model in bert96 bert96gelu; do
  for backend in opencl cpu; do
    echo "== $model: 3 x 96 / 3 heads / vocabulary 500, 77 tokens: stagebench $backend vs transformers" | tee -a "$log"
    bash "$sb" infer geneformer --backend "$backend" --weights "/tmp/$model" --input /tmp/bert_ids.npy \
      --output "/tmp/${model}_$backend.safetensors" 2>&1 | tee -a "$log"
    python3 "$ref/geneformer_torch.py" --weights "/tmp/$model" --ids /tmp/bert_ids.npy \
      --check "/tmp/${model}_$backend.safetensors" 2>&1 | tee -a "$log"
  done
done
