//===- GpuMemoryTest.cpp - Reading GPU memory from the vendor tools -------===//

#include "arecipe/Runtime/GpuMemory.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace arecipe::runtime;

TEST(GpuMemory, AmdSmiGpuDataWithUnits) {
  std::string Err;
  auto G = parseGpuMemory("amd-smi", R"({"gpu_data": [
      {"gpu": 0, "mem_usage": {"total_vram": {"value": 1024, "unit": "MB"},
                               "used_vram": {"value": 512, "unit": "MB"}}}]})",
                          Err);
  ASSERT_TRUE(G) << Err;
  ASSERT_EQ(G->size(), 1u);
  EXPECT_DOUBLE_EQ((*G)[0].usedFraction(), 0.5);
}

TEST(GpuMemory, AmdSmiOlderListOfBareNumbers) {
  std::string Err;
  auto G = parseGpuMemory(
      "amd-smi", R"([{"gpu": 5, "mem_usage": {"total_vram": 100, "used_vram": "1 MB"}}])", Err);
  ASSERT_TRUE(G) << Err;
  EXPECT_EQ((*G)[0].Index, 5);
  EXPECT_DOUBLE_EQ((*G)[0].usedFraction(), 0.01);
}

TEST(GpuMemory, RocmSmiCards) {
  std::string Err;
  auto G = parseGpuMemory("rocm-smi", R"J({"card1": {"VRAM Total Memory (B)": "1000",
      "VRAM Total Used Memory (B)": "10"}, "system": {}})J",
                          Err);
  ASSERT_TRUE(G) << Err;
  EXPECT_EQ((*G)[0].Index, 1);
  EXPECT_DOUBLE_EQ((*G)[0].usedFraction(), 0.01);
}

TEST(GpuMemory, NvidiaSmiCsv) {
  std::string Err;
  auto G = parseGpuMemory("nvidia-smi", "0, 4, 81920\n1, 40960, 81920\n", Err);
  ASSERT_TRUE(G) << Err;
  ASSERT_EQ(G->size(), 2u);
  EXPECT_DOUBLE_EQ((*G)[1].usedFraction(), 0.5);
}

TEST(GpuMemory, UnknownFormatIsAnErrorNotZeroUsed) {
  std::string Err;
  EXPECT_FALSE(parseGpuMemory("amd-smi", "GPU 0: 12 MB used", Err));
  EXPECT_FALSE(Err.empty());
  EXPECT_FALSE(parseGpuMemory("amd-smi", R"([{"gpu": 0}])", Err));
  EXPECT_FALSE(parseGpuMemory("nvidia-smi", "", Err));
}

TEST(GpuMemory, SimulatedFilesAreSummedPerGpu) {
  auto Dir = std::filesystem::temp_directory_path() / ("gpumem-" + std::to_string(getpid()));
  std::filesystem::create_directories(Dir);
  std::ofstream(Dir / "a.mem") << "0 100 1000\n1 0 1000\n";
  std::ofstream(Dir / "b.mem") << "0 50 1000\n";
  auto G = readSimulatedGpuMemory(Dir.string());
  std::filesystem::remove_all(Dir);
  ASSERT_EQ(G.size(), 2u);
  EXPECT_DOUBLE_EQ(G[0].UsedBytes, 150);
  EXPECT_DOUBLE_EQ(G[1].UsedBytes, 0);
  EXPECT_TRUE(readSimulatedGpuMemory("/nonexistent-dir").empty());
}
