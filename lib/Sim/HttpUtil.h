//===- HttpUtil.h - Small evhttp helpers shared by the sim's servers -*- C++
//-*-===//
//
// Whole replies, request headers and bodies, as the engine front end and the
// router both need them: one place that knows the evhttp calls, so neither
// repeats them.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_LIB_SIM_HTTPUTIL_H
#define ARECIPE_LIB_SIM_HTTPUTIL_H

#include <string>
#include <string_view>

struct evbuffer;
struct evhttp_request;

namespace arecipe::sim {

/// Sends a complete reply; \p Scratch is the loop's reply buffer.
void sendReply(evhttp_request *Req, evbuffer *Scratch, int Code,
               std::string_view Body,
               const char *ContentType = "application/json");

/// The value of request header \p Name, or "".
std::string requestHeader(evhttp_request *Req, const char *Name);

/// The request body (the input buffer, made contiguous).
std::string_view requestBody(evhttp_request *Req);

/// The request path without the query, "/" when absent.
std::string_view requestPath(evhttp_request *Req);

bool isPost(evhttp_request *Req);

class SimLog;

/// `--port-file`: writes the port the server is listening on to Path, which
/// a reader sees whole or not at all; an empty Path writes nothing. False
/// after logging why it could not.
bool writePortFile(const std::string &Path, int Port, SimLog &Log);

} // namespace arecipe::sim

#endif
