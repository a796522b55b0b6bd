//===- HttpCall.cpp - Short blocking HTTP calls to a local engine ---------===//

#include "arecipe/Runtime/HttpCall.h"

#include <curl/curl.h>
#include <fmt/format.h>

#include <mutex>

namespace arecipe::runtime {

namespace {

constexpr size_t MaxBody = 1 << 20;

size_t appendBody(char *Data, size_t Size, size_t N, void *User) {
  auto *Body = static_cast<std::string *>(User);
  size_t Bytes = Size * N;
  if (Body->size() < MaxBody)
    Body->append(Data, std::min(Bytes, MaxBody - Body->size()));
  return Bytes;
}

} // namespace

std::string HttpReply::describe() const {
  if (Status)
    return fmt::format("HTTP {}", Status);
  return Error.empty() ? std::string("no answer") : Error;
}

HttpReply httpCall(HttpMethod Method, const std::string &Url, long TimeoutMs) {
  static std::once_flag Init;
  std::call_once(Init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  HttpReply Reply;
  CURL *Easy = curl_easy_init();
  if (!Easy) {
    Reply.Error = "cannot create a libcurl handle";
    return Reply;
  }
  char ErrBuf[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(Easy, CURLOPT_URL, Url.c_str());
  curl_easy_setopt(Easy, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(Easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(Easy, CURLOPT_TIMEOUT_MS, TimeoutMs);
  curl_easy_setopt(Easy, CURLOPT_CONNECTTIMEOUT_MS, TimeoutMs);
  curl_easy_setopt(Easy, CURLOPT_WRITEFUNCTION, appendBody);
  curl_easy_setopt(Easy, CURLOPT_WRITEDATA, &Reply.Body);
  curl_easy_setopt(Easy, CURLOPT_ERRORBUFFER, ErrBuf);
  if (Method == HttpMethod::Post) {
    curl_easy_setopt(Easy, CURLOPT_POST, 1L);
    curl_easy_setopt(Easy, CURLOPT_POSTFIELDS, "");
  }
  CURLcode Code = curl_easy_perform(Easy);
  if (Code == CURLE_OK)
    curl_easy_getinfo(Easy, CURLINFO_RESPONSE_CODE, &Reply.Status);
  else
    Reply.Error = ErrBuf[0] ? ErrBuf : curl_easy_strerror(Code);
  curl_easy_cleanup(Easy);
  return Reply;
}

} // namespace arecipe::runtime
