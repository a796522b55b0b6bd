//===- CurlLibrary.cpp - libcurl, opened on first use ---------------------===//

#include "CurlLibrary.h"

#include <cstdlib>
#include <dlfcn.h>

using namespace arecipe::client;
using namespace arecipe::client::detail;

namespace {
struct Loaded {
  CurlLibrary Api{};
  std::string Error;
  bool Ok = false;

  Loaded() {
    // libcurl's ABI has been libcurl.so.4 since 7.16 (2006); it is the
    // library the build found and the Debian package depends on.
    // ARECIPE_LIBCURL names another file: for a package whose libcurl is
    // elsewhere, and for tests, which name one that does not exist to see
    // the client fail cleanly without libcurl.
    const char *Name = std::getenv("ARECIPE_LIBCURL");
    if (!Name || !*Name)
      Name = "libcurl.so.4";
    void *Handle = ::dlopen(Name, RTLD_NOW | RTLD_LOCAL);
    if (!Handle) {
      const char *Why = ::dlerror();
      Error = Why ? Why : std::string(Name) + ": not found";
      return;
    }
    bool AllFound = true;
    auto Get = [&](auto &Fn, const char *Name) {
      Fn = reinterpret_cast<std::remove_reference_t<decltype(Fn)>>(::dlsym(Handle, Name));
      if (!Fn && AllFound) {
        AllFound = false;
        Error = std::string("no symbol ") + Name;
      }
    };
    Get(Api.easy_init, "curl_easy_init");
    Get(Api.easy_setopt, "curl_easy_setopt");
    Get(Api.easy_perform, "curl_easy_perform");
    Get(Api.easy_getinfo, "curl_easy_getinfo");
    Get(Api.easy_cleanup, "curl_easy_cleanup");
    Get(Api.easy_strerror, "curl_easy_strerror");
    Get(Api.slist_append, "curl_slist_append");
    Get(Api.slist_free_all, "curl_slist_free_all");
    Get(Api.multi_init, "curl_multi_init");
    Get(Api.multi_setopt, "curl_multi_setopt");
    Get(Api.multi_add_handle, "curl_multi_add_handle");
    Get(Api.multi_remove_handle, "curl_multi_remove_handle");
    Get(Api.multi_assign, "curl_multi_assign");
    Get(Api.multi_socket_action, "curl_multi_socket_action");
    Get(Api.multi_info_read, "curl_multi_info_read");
    Get(Api.multi_cleanup, "curl_multi_cleanup");
    decltype(&::curl_global_init) GlobalInit = nullptr;
    Get(GlobalInit, "curl_global_init");
    if (!AllFound)
      return;
    // Once, before any handle, as libcurl asks (curl_easy_init would do it
    // itself, but not thread-safely).
    if (CURLcode Rc = GlobalInit(CURL_GLOBAL_DEFAULT); Rc != CURLE_OK) {
      Error = std::string("curl_global_init failed: ") + Api.easy_strerror(Rc);
      return;
    }
    Ok = true;
  }
};
} // namespace

const CurlLibrary *detail::curlLibrary(std::string &Err) {
  static const Loaded L;
  if (!L.Ok) {
    Err = L.Error;
    return nullptr;
  }
  return &L.Api;
}
