//===- FmtStatic.cpp - fmt's compiled part, for a static link ---*- C++ -*-===//
//
// Debian's libfmt-dev ships fmt only as a shared library. A tool that loads
// libfmt.so also loads libstdc++.so (fmt's own dependency), and the dynamic
// loader then spends most of a short run's start-up on their ~1,800
// relocations (docs/build.md#start-up-of-the-tools). fmt's non-inline
// part is its format-inl.h plus the explicit instantiations below (those
// of fmt 9), so the build compiles it here into a static library and no
// binary loads libfmt.so; the compiler's tools then link libstdc++ and
// libgcc statically too.
// CMake uses this file only with fmt 9 (cmake/ArecipeDependencies.cmake).
//
//===----------------------------------------------------------------------===//

#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept
    -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept
    -> dragonbox::decimal_fp<double>;

#ifndef FMT_STATIC_THOUSANDS_SEPARATOR
template FMT_API locale_ref::locale_ref(const std::locale &loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
#endif

template FMT_API auto thousands_sep_impl(locale_ref)
    -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API void buffer<char>::append(const char *, const char *);
template FMT_API void vformat_to(buffer<char> &, string_view,
                                 basic_format_args<FMT_BUFFER_CONTEXT(char)>,
                                 locale_ref);

template FMT_API auto thousands_sep_impl(locale_ref)
    -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
template FMT_API void buffer<wchar_t>::append(const wchar_t *,
                                              const wchar_t *);

} // namespace detail
FMT_END_NAMESPACE
