//===- CurlLibrary.h - libcurl, opened on first use -------------*- C++ -*-===//
//
// Private to lib/Client. libcurl serves what the native transport does not
// speak (TLS, URLs with credentials) and the HTTP GETs of /metrics scrapes
// and readiness checks; a benchmark of a plain http:// server without
// scrapes never calls it. Linked as a shared library, libcurl and the
// thirty libraries it needs (TLS, Kerberos, LDAP, ...) were mapped,
// relocated and initialised at every start of arecipe-load: about 5 ms of
// CPU per process, as much as its end-of-run metrics. So the client opens
// it with dlopen on first use, and every call goes through this table. The
// types and constants still come from <curl/curl.h>.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_CLIENT_CURLLIBRARY_H
#define ARECIPE_LIB_CLIENT_CURLLIBRARY_H

#include <curl/curl.h>

#include <string>

namespace arecipe::client::detail {

/// libcurl's functions that the client calls, by their own types.
struct CurlLibrary {
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_perform) easy_perform;
  decltype(&::curl_easy_getinfo) easy_getinfo;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
  decltype(&::curl_multi_init) multi_init;
  decltype(&::curl_multi_setopt) multi_setopt;
  decltype(&::curl_multi_add_handle) multi_add_handle;
  decltype(&::curl_multi_remove_handle) multi_remove_handle;
  decltype(&::curl_multi_assign) multi_assign;
  decltype(&::curl_multi_socket_action) multi_socket_action;
  decltype(&::curl_multi_info_read) multi_info_read;
  decltype(&::curl_multi_cleanup) multi_cleanup;
};

/// libcurl, opened and globally initialised by the first call (thread-safe);
/// nullptr, with Err saying why, when it cannot be loaded (the loader's
/// message, which names the file; callers say what needed libcurl). The
/// library stays loaded for the life of the process. The file is
/// libcurl.so.4, or the one the environment variable ARECIPE_LIBCURL names
/// (docs/metrics.md).
const CurlLibrary *curlLibrary(std::string &Err);

} // namespace arecipe::client::detail

#endif // ARECIPE_LIB_CLIENT_CURLLIBRARY_H
