// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// An SST's references read from disk (blob/lifecycle/sst_refs.h): from the
// property, or by scanning an SST built without HybridKV.
#include "plugin/hybridkv/blob/lifecycle/sst_refs.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "rocksdb/options.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table_properties.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

TableProperties WithRefsProperty(const std::string& value) {
  TableProperties props;
  props.user_collected_properties[kMediumRefsProperty] = value;
  return props;
}

// The property a builder that recorded `refs` writes.
std::string Encoded(MediumRefs* refs) {
  MediumRefsCollectorFactory factory(refs);
  std::unique_ptr<InternalTblPropColl> collector(
      factory.CreateInternalTblPropColl(0, 1, 7, 0));
  UserCollectedProperties props;
  EXPECT_OK(collector->Finish(&props));
  return props[kMediumRefsProperty];
}

// An SST whose property cannot be decoded is scanned instead; one that
// cannot be read at all leaves its references unknown: an error.
TEST(SstRefsTest, ReadFallsBackToScanningTheSst) {
  test::ScratchDir dir("sst-refs");
  const std::string sst = dir.Sub("plain.sst");
  Options options;
  SstFileWriter writer(EnvOptions(), options);
  ASSERT_OK(writer.Open(sst));
  for (int i = 0; i < 100; ++i) {
    ASSERT_OK(writer.Put("key" + std::to_string(1000 + i), "value"));
  }
  ASSERT_OK(writer.Finish());

  const std::shared_ptr<FileSystem> fs = FileSystem::Default();
  int entries = 0;
  ASSERT_OK(ForEachRawEntry(
      fs, sst, [&entries](const Slice&, const Slice&) { entries++; }));
  EXPECT_EQ(entries, 100);

  MediumRefs got;
  got[1] = {};
  ASSERT_OK(
      ReadMediumRefs(fs, sst, WithRefsProperty(std::string("\x09", 1)), &got));
  EXPECT_TRUE(got.empty());
  got[1] = {};
  ASSERT_OK(ScanMediumRefs(fs, sst, &got));
  EXPECT_TRUE(got.empty());

  // A decodable property is trusted, without reading the file.
  MediumRefs refs;
  refs[8] = {1, 10, {{0, 10}}};
  ASSERT_OK(ReadMediumRefs(fs, dir.Sub("missing.sst"),
                           WithRefsProperty(Encoded(&refs)), &got));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[8].pointers, 1u);
  EXPECT_EQ(got[8].record_bytes, 10u);
  EXPECT_EQ(got[8].runs, refs[8].runs);

  EXPECT_FALSE(
      ReadMediumRefs(fs, dir.Sub("missing.sst"), TableProperties(), &got).ok());
  test::WriteWholeFile(dir.Sub("garbage.sst"), std::string(4096, 'x'));
  EXPECT_FALSE(ScanMediumRefs(fs, dir.Sub("garbage.sst"), &got).ok());
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
