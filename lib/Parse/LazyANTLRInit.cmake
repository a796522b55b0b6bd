# Makes the generated lexer's and parser's static initialisation lazy.
#
# ANTLR's C++ target defines a static `Initializer _init` per recognizer
# whose constructor deserialises the ATN and builds the DFA tables at
# program start-up. With the fast parser in front (FastParser.cpp) most
# processes never construct an ANTLR recognizer, so that work moves into the
# recognizer's constructor as a function-local static (initialised once,
# thread-safe), paid only by the first text that reaches the reference path.
#
#   cmake -DGEN_DIR=<dir of the generated sources> -P LazyANTLRInit.cmake
foreach(recognizer ARecipeLexer:Lexer:CharStream ARecipeParser:Parser:TokenStream)
  string(REPLACE ":" ";" parts ${recognizer})
  list(GET parts 0 class)
  list(GET parts 1 base)
  list(GET parts 2 stream)
  set(file ${GEN_DIR}/${class}.cpp)
  file(READ ${file} text)
  set(eager "${class}::Initializer ${class}::_init;")
  set(ctor "${class}::${class}(${stream} *input) : ${base}(input) {\n")
  string(FIND "${text}" "${eager}" eager_at)
  string(FIND "${text}" "${ctor}" ctor_at)
  if(eager_at EQUAL -1 OR ctor_at EQUAL -1)
    message(FATAL_ERROR "LazyANTLRInit: ${file} does not have the expected "
                        "static initializer and constructor")
  endif()
  string(REPLACE "${eager}" "// ${class}::_init: initialised lazily in the constructor." text "${text}")
  string(REPLACE "${ctor}" "${ctor}  static Initializer LazyInit;\n  (void)LazyInit;\n" text "${text}")
  file(WRITE ${file} "${text}")
endforeach()
