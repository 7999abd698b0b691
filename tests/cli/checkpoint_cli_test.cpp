// A user's own DeepFM and DynUNet checkpoints through the stagebench binary (issue 28): a missing
// tensor, and a config.json contradicting the shapes, exit 2 naming the tensor or key and both
// values. The files are written here, zeros under the shapes that matter.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/common/run_stagebench.h"
#include "tests/common/temp_dir.h"

namespace checkpoint_cli {

using sb::testing::TempDir;
using Shapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;

// A .safetensors file of F32 zeros: the 8-byte header length, the JSON header, the data.
void write_zeros(const std::filesystem::path& path, const Shapes& tensors) {
  nlohmann::json header = nlohmann::json::object();
  size_t bytes = 0;
  for (const auto& [name, shape] : tensors) {
    size_t count = 1;
    for (int64_t d : shape) count *= static_cast<size_t>(d);
    header[name] = {
        {"dtype", "F32"}, {"shape", shape}, {"data_offsets", {bytes, bytes + 4 * count}}};
    bytes += 4 * count;
  }
  const std::string text = header.dump();
  std::ofstream out(path, std::ios::binary);
  const uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xff));
  out << text << std::string(bytes, '\0');
}

void expect_bad_input(const std::string& args, const std::string& needle) {
  setenv("OMP_NUM_THREADS", "1", 1);
  const sb::testing::CommandResult r = sb::testing::run_stagebench(args, "timeout 120 ");
  EXPECT_EQ(r.status, 2) << args << "\n" << r.output.substr(0, 2000);
  EXPECT_NE(r.output.find(needle), std::string::npos) << args << "\n" << r.output.substr(0, 2000);
}

// DeepFM of embed 8, feed-forward 12, one deep layer of 16, five rows a table.
Shapes deepfm() {
  Shapes s;
  for (const char* table : {"drug_emb", "genalle_emb", "gene_emb", "allele_emb"})
    s.push_back({std::string(table) + ".weight", {5, 8}});
  s.push_back({"encoder.self_attn.in_proj_weight", {24, 8}});
  s.push_back({"encoder.self_attn.in_proj_bias", {24}});
  s.push_back({"encoder.self_attn.out_proj.weight", {8, 8}});
  s.push_back({"encoder.self_attn.out_proj.bias", {8}});
  s.push_back({"encoder.linear1.weight", {12, 8}});
  s.push_back({"encoder.linear1.bias", {12}});
  s.push_back({"encoder.linear2.weight", {8, 12}});
  s.push_back({"encoder.linear2.bias", {8}});
  for (const char* norm : {"encoder.norm1", "encoder.norm2"}) {
    s.push_back({std::string(norm) + ".weight", {8}});
    s.push_back({std::string(norm) + ".bias", {8}});
  }
  s.push_back({"deep.0.weight", {16, 32}});
  s.push_back({"deep.0.bias", {16}});
  for (const auto& [head, classes] : {std::pair<const char*, int64_t>{"outcome_head", 6},
                                      {"direction_head", 4},
                                      {"type_head", 12}}) {
    s.push_back({std::string(head) + ".weight", {classes, 22}});
    s.push_back({std::string(head) + ".bias", {classes}});
  }
  s.push_back({"log_vars", {3}});
  return s;
}

TEST(CheckpointCli, DeepFmRefusalsNameTheTensorOrKeyAndBothValues) {
  const TempDir dir;
  Shapes s = deepfm();
  write_zeros(dir.path() / "model.safetensors", s);
  std::ofstream(dir.path() / "config.json") << R"({"embed": 16})";
  const std::string args = "run deepfm --size tiny --backend cpu --weights " + dir.path().string();
  expect_bad_input(args, "embed is 16 but the weights (drug_emb.weight's columns) say 8");
  std::filesystem::remove(dir.path() / "config.json");
  std::erase_if(s, [](const auto& t) { return t.first == "encoder.linear1.weight"; });
  write_zeros(dir.path() / "model.safetensors", s);
  expect_bad_input(args, "missing tensor 'encoder.linear1.weight'");
}

TEST(CheckpointCli, DynUnetRefusalsNameTheTensorOrKeyAndBothValues) {
  const TempDir dir;
  Shapes s{{"input_block.conv1.conv.weight", {4, 1, 3, 3, 3}},
           {"input_block.conv3.conv.weight", {4, 1, 1, 1, 1}},
           {"bottleneck.conv1.conv.weight", {8, 4, 3, 3, 3}},
           {"bottleneck.conv3.conv.weight", {8, 4, 1, 1, 1}},
           {"upsamples.0.transp_conv.conv.weight", {8, 4, 2, 2, 2}},
           {"output_block.conv.conv.weight", {1, 4, 1, 1, 1}}};
  write_zeros(dir.path() / "model.safetensors", s);
  std::ofstream(dir.path() / "config.json") << R"({"filters": [4, 16]})";
  const std::string args = "run dynunet --size tiny --backend cpu --weights " + dir.path().string();
  expect_bad_input(args, "filters is [4,16] but the weights (each level's conv1 rows) say [4,8]");
  std::filesystem::remove(dir.path() / "config.json");
  s.pop_back();
  write_zeros(dir.path() / "model.safetensors", s);
  expect_bad_input(args, "missing tensor 'output_block.conv.conv.weight'");
}

}  // namespace checkpoint_cli
