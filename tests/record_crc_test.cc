// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// RecordCrc (blob/format/record_crc.h), the checksum of medium records.
#include "plugin/hybridkv/blob/format/record_crc.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "util/crc32c.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// Medium records written by either implementation read back with the other:
// RecordCrc is crc32c, whichever instruction computes it.
TEST(RecordCrcTest, EqualsRocksDBCrc32c) {
  std::mt19937_64 rng(7);
  std::string data(600, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  for (size_t offset = 0; offset < 8; offset++) {  // every alignment
    for (size_t n = 0; n + offset <= data.size(); n += 1 + n / 16) {
      ASSERT_EQ(RecordCrc(data.data() + offset, n),
                crc32c::Value(data.data() + offset, n))
          << "offset " << offset << " length " << n;
    }
  }
  // crc32c's check value for "123456789".
  EXPECT_EQ(RecordCrc("123456789", 9), 0xe3069283u);
  // Extending covers the concatenation, as a record's crc covers its key.
  for (size_t split = 0; split <= 300; split += 13) {
    ASSERT_EQ(RecordCrcExtend(RecordCrc(data.data(), split),
                              data.data() + split, 300 - split),
              crc32c::Value(data.data(), 300))
        << "split " << split;
  }
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
