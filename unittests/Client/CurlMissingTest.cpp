//===- CurlMissingTest.cpp - The client without libcurl -------------------===//
//
// libcurl is opened once per process, on first use (lib/Client/CurlLibrary.h),
// so each case runs in a fresh process of its own (a "threadsafe" death test
// re-executes this binary) with ARECIPE_LIBCURL naming a file that does not
// exist. test/Client/curl-missing.test covers arecipe-load end to end.
// The child's stderr is checked with a matcher, not a regular expression:
// in the sanitizer build, glibc's regexec called through the sanitizer's
// interceptor deadlocked on the pattern's lock in the parent, hanging the
// whole suite.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Client/Readiness.h"
#include "arecipe/Client/Workload.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

using namespace arecipe::client;

namespace {

const char *const Missing = "libarecipe-no-such-curl.so.4";

/// Prints Err and exits 0 when Ok is false as expected, 1 otherwise.
[[noreturn]] void report(bool Ok, const std::string &Err) {
  std::fprintf(stderr, "%s\n", Err.c_str());
  std::exit(Ok ? 1 : 0);
}

TEST(CurlMissing, ReadinessFailsAtOnceSayingWhy) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("ARECIPE_LIBCURL", Missing, 1);
        Endpoint Target;
        Target.BaseUrl = "http://127.0.0.1:9";
        Target.Model = "m";
        std::string Err;
        // Without the up-front check the wait would end at its timeout with
        // "did not list 'm'": the message tells the two apart.
        report(waitUntilServing(Target, 30, Err), Err);
      },
      ::testing::ExitedWithCode(0),
      ::testing::StartsWith("cannot load libcurl, which the readiness check of "
                            "http://127.0.0.1:9/v1/models needs: "
                            "libarecipe-no-such-curl.so.4: "));
}

TEST(CurlMissing, RunTransportNeedsLibcurlOnlyBeyondPlainHttp) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  WorkloadSpec Spec;
  Endpoint Target;
  Target.BaseUrl = "http://127.0.0.1:9";
  EXPECT_EXIT(
      {
        ::setenv("ARECIPE_LIBCURL", Missing, 1);
        std::string Err;
        report(checkRunTransport(Spec, Target, Err) && Err.empty(),
               "plain http needs no libcurl");
      },
      ::testing::ExitedWithCode(1),
      ::testing::StartsWith("plain http needs no libcurl"));
  EXPECT_EXIT(
      {
        ::setenv("ARECIPE_LIBCURL", Missing, 1);
        Target.BaseUrl = "https://bench:hunter2@127.0.0.1:9";
        std::string Err;
        report(checkRunTransport(Spec, Target, Err), Err);
      },
      ::testing::ExitedWithCode(0),
      ::testing::StartsWith(
          "cannot load libcurl, which requests to a server URL that is "
          "https:// or has credentials need: libarecipe-no-such-curl.so.4: "));
  EXPECT_EXIT(
      {
        ::setenv("ARECIPE_LIBCURL", Missing, 1);
        Spec.Transport.ForceLibcurl = true;
        std::string Err;
        report(checkRunTransport(Spec, Target, Err), Err);
      },
      ::testing::ExitedWithCode(0),
      ::testing::StartsWith("cannot load libcurl, which the transport options "
                            "ask for: libarecipe-no-such-curl.so.4: "));
}

} // namespace
