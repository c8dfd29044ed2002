// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The refs property (blob/format/medium_refs.h) without a DB: what a builder
// records per pointer, the property its collector writes, and how
// GetMediumRefs decodes it and refuses damaged or unknown encodings. The
// runs' arithmetic is medium_runs_test.cc's.
#include "plugin/hybridkv/blob/format/medium_refs.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>

#include "rocksdb/options.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table_properties.h"
#include "table/sst_file_writer_collectors.h"
#include "test_util.h"
#include "util/coding.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// What the collector of a builder that recorded `refs` writes to the SST's
// properties.
UserCollectedProperties Collect(MediumRefs* refs) {
  MediumRefsCollectorFactory factory(refs);
  std::unique_ptr<InternalTblPropColl> collector(
      factory.CreateInternalTblPropColl(0, 1, 7, 0));
  UserCollectedProperties props;
  EXPECT_OK(collector->Finish(&props));
  return props;
}

std::string Encoded(MediumRefs* refs) {
  UserCollectedProperties props = Collect(refs);
  EXPECT_EQ(props.count(kMediumRefsProperty), 1u);
  return props[kMediumRefsProperty];
}

TableProperties WithRefsProperty(const std::string& value) {
  TableProperties props;
  props.user_collected_properties[kMediumRefsProperty] = value;
  return props;
}

void ExpectSameRefs(const MediumRefs& got, const MediumRefs& want) {
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [number, ref] : want) {
    ASSERT_EQ(got.count(number), 1u) << number;
    const MediumFileRef& g = got.at(number);
    EXPECT_EQ(g.pointers, ref.pointers) << number;
    EXPECT_EQ(g.record_bytes, ref.record_bytes) << number;
    EXPECT_EQ(g.runs, ref.runs) << number;
  }
}

TEST(MediumRefsTest, AddRecordCountsAndExtendsRunsInOffsetOrder) {
  MediumFileRef ref;
  ref.AddRecord(100, 50);  // [100, 150)
  ref.AddRecord(150, 30);  // adjacent: [100, 180)
  ref.AddRecord(170, 5);   // inside: unchanged end
  EXPECT_EQ(ref.pointers, 3u);
  EXPECT_EQ(ref.record_bytes, 85u);
  EXPECT_EQ(ref.runs, (MediumRuns{{100, 180}}));

  // A gap of exactly kMediumRunMergeGap still extends the run; one byte more
  // starts a new one.
  ref.AddRecord(180 + kMediumRunMergeGap, 10);
  EXPECT_EQ(ref.runs, (MediumRuns{{100, 190 + kMediumRunMergeGap}}));
  const uint64_t far = 190 + 2 * kMediumRunMergeGap + 1;
  ref.AddRecord(far, 10);
  EXPECT_EQ(ref.runs,
            (MediumRuns{{100, 190 + kMediumRunMergeGap}, {far, far + 10}}));

  // A record before the last run starts a run of its own (the collector
  // normalizes them).
  ref.AddRecord(0, 10);
  EXPECT_EQ(ref.runs.size(), 3u);
  EXPECT_EQ(ref.runs.back(), (MediumRun{0, 10}));
  EXPECT_EQ(ref.pointers, 6u);
  EXPECT_EQ(ref.record_bytes, 115u);
}

TEST(MediumRefsTest, CollectorOutputDecodesToTheNormalizedRefs) {
  MediumRefsRecorder recorder;
  // File 7: records out of order, two of them more than the merge gap apart.
  recorder.AddRecord(7, 20000, 100);
  recorder.AddRecord(7, 0, 100);
  recorder.AddRecord(7, 100, 50);
  recorder.AddRecord(7, 20100, 100);
  // File 3: one record at an offset that needs every byte of a varint64.
  recorder.AddRecord(3, uint64_t{1} << 62, 4096);
  // A file number past 32 bits.
  recorder.AddRecord(uint64_t{1} << 40, 5, 1);

  const std::string encoded = Encoded(recorder.refs());
  MediumRefs want;
  want[7] = {4, 350, {{0, 150}, {20000, 20200}}};
  want[3] = {1, 4096, {{uint64_t{1} << 62, (uint64_t{1} << 62) + 4096}}};
  want[uint64_t{1} << 40] = {1, 1, {{5, 6}}};
  // The collector normalized the builder's runs in place.
  ExpectSameRefs(*recorder.refs(), want);

  MediumRefs got;
  bool known = false;
  ASSERT_OK(GetMediumRefs(WithRefsProperty(encoded), &got, &known));
  EXPECT_TRUE(known);
  ExpectSameRefs(got, want);
}

// The encoding is the one medium_refs.h documents, byte for byte: version 2,
// files in increasing number, each run's gap from the previous run's end.
TEST(MediumRefsTest, EncodingFollowsTheDocumentedFormat) {
  MediumRefs refs;
  refs[9] = {2, 30, {{10, 20}, {50000, 50020}}};
  refs[4] = {1, 8, {{0, 8}}};
  std::string want;
  PutVarint32(&want, 2);  // version
  PutVarint32(&want, 2);  // count
  PutVarint64(&want, 4);
  PutVarint64(&want, 1);
  PutVarint64(&want, 8);
  PutVarint32(&want, 1);
  PutVarint64(&want, 0);  // gap from 0
  PutVarint64(&want, 8);  // length
  PutVarint64(&want, 9);
  PutVarint64(&want, 2);
  PutVarint64(&want, 30);
  PutVarint32(&want, 2);
  PutVarint64(&want, 10);
  PutVarint64(&want, 10);
  PutVarint64(&want, 50000 - 20);  // gap from the previous run's end
  PutVarint64(&want, 20);
  EXPECT_EQ(Encoded(&refs), want);
}

// HybridKV writes the property even when the SST references nothing: its
// presence tells the SST was built by HybridKV.
TEST(MediumRefsTest, EmptyRefsAreWrittenAndKnown) {
  MediumRefs none;
  const std::string encoded = Encoded(&none);
  EXPECT_FALSE(encoded.empty());
  MediumRefs got;
  got[1] = {};  // cleared by the decoder
  bool known = false;
  ASSERT_OK(GetMediumRefs(WithRefsProperty(encoded), &got, &known));
  EXPECT_TRUE(known);
  EXPECT_TRUE(got.empty());
}

TEST(MediumRefsTest, AbsentPropertyIsUnknownUnlessSstFileWriterWroteIt) {
  MediumRefs got;
  got[1] = {};
  bool known = true;
  TableProperties props;
  ASSERT_OK(GetMediumRefs(props, &got, &known));
  EXPECT_FALSE(known);
  EXPECT_TRUE(got.empty());

  props.user_collected_properties[ExternalSstFilePropertyNames::kVersion] = "2";
  known = false;
  ASSERT_OK(GetMediumRefs(props, &got, &known));
  EXPECT_TRUE(known);
  EXPECT_TRUE(got.empty());
}

// Every proper prefix of a valid property is refused as Corruption: the count
// and run counts say how much must follow.
TEST(MediumRefsTest, EveryTruncationIsCorruption) {
  MediumRefsRecorder recorder;
  for (uint64_t file = 1; file <= 3; ++file) {
    for (uint64_t i = 0; i < 4; ++i) {
      recorder.AddRecord(file * 1000, i * 100000 + file, 300 + i);
    }
  }
  const std::string encoded = Encoded(recorder.refs());
  MediumRefs got;
  bool known = false;
  ASSERT_OK(GetMediumRefs(WithRefsProperty(encoded), &got, &known));
  ASSERT_EQ(got.size(), 3u);
  for (size_t len = 0; len < encoded.size(); ++len) {
    Status s =
        GetMediumRefs(WithRefsProperty(encoded.substr(0, len)), &got, &known);
    EXPECT_TRUE(s.IsCorruption()) << len << ": " << s.ToString();
    EXPECT_NE(s.ToString().find(kMediumRefsProperty), std::string::npos)
        << len << ": " << s.ToString();
    EXPECT_TRUE(known) << len;  // present, only undecodable
  }
}

// Bytes past the last entry the count announces are damage, not a longer
// format: refused, and nothing half-decoded is left in the output.
TEST(MediumRefsTest, TrailingBytesAreCorruptionAndLeaveNothingDecoded) {
  MediumRefsRecorder recorder;
  recorder.AddRecord(7000, 100, 300);
  recorder.AddRecord(8000, 200, 300);
  const std::string encoded = Encoded(recorder.refs());
  for (const std::string& tail : {std::string(1, '\0'), std::string("xyz")}) {
    MediumRefs got;
    bool known = false;
    Status s = GetMediumRefs(WithRefsProperty(encoded + tail), &got, &known);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.ToString().find("past its last entry"), std::string::npos)
        << s.ToString();
    EXPECT_TRUE(got.empty());
    EXPECT_TRUE(known);
  }
  // A truncated entry leaves nothing either.
  MediumRefs got;
  bool known = false;
  EXPECT_TRUE(
      GetMediumRefs(WithRefsProperty(encoded.substr(0, encoded.size() - 1)),
                    &got, &known)
          .IsCorruption());
  EXPECT_TRUE(got.empty());
}

TEST(MediumRefsTest, UnknownVersionsAreCorruptionNamingTheVersions) {
  for (uint32_t version : {0u, 3u, 100u, 0xFFFFFFFFu}) {
    std::string encoded;
    PutVarint32(&encoded, version);
    PutVarint32(&encoded, 0);
    MediumRefs got;
    bool known = false;
    Status s = GetMediumRefs(WithRefsProperty(encoded), &got, &known);
    EXPECT_TRUE(s.IsCorruption()) << version << ": " << s.ToString();
    EXPECT_NE(s.ToString().find("unknown version"), std::string::npos)
        << s.ToString();
  }
  // A varint that never ends is no version at all.
  MediumRefs got;
  bool known = false;
  Status s =
      GetMediumRefs(WithRefsProperty(std::string(6, '\xff')), &got, &known);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

TEST(MediumRefsTest, ReadablePropertyListsEachFile) {
  MediumRefs refs;
  refs[12] = {3, 900, {{0, 100}, {10000, 10800}}};
  refs[5] = {1, 7, {{0, 7}}};
  MediumRefsCollectorFactory factory(&refs);
  std::unique_ptr<InternalTblPropColl> collector(
      factory.CreateInternalTblPropColl(0, 1, 7, 0));
  UserCollectedProperties readable = collector->GetReadableProperties();
  ASSERT_EQ(readable.count("hybridkv.medium.refs.readable"), 1u);
  EXPECT_EQ(readable["hybridkv.medium.refs.readable"],
            "5:1/7/1runs 12:3/900/2runs");
  EXPECT_STREQ(factory.Name(), "HybridKVMediumRefsCollectorFactory");
  EXPECT_STREQ(collector->Name(), "HybridKVMediumRefsCollector");
}

TEST(MediumRefsTest, ForwardingFactoryCreatesTheTargetsCollector) {
  MediumRefs refs;
  refs[2] = {1, 10, {{0, 10}}};
  MediumRefsCollectorFactory target(&refs);
  ForwardingCollectorFactory forwarding(&target);
  EXPECT_STREQ(forwarding.Name(), target.Name());
  std::unique_ptr<InternalTblPropColl> collector(
      forwarding.CreateInternalTblPropColl(0, 1, 7, 0));
  UserCollectedProperties props;
  ASSERT_OK(collector->Finish(&props));
  EXPECT_EQ(props[kMediumRefsProperty], Encoded(&refs));
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
