// The arecipe language (docs/language.md), lexer and parser in one grammar.
//
// ANTLR generates C++ from this file at build time (lib/Parse/CMakeLists.txt);
// the generated code never leaves lib/Parse, where a visitor turns the parse
// tree into the project's AST (include/arecipe/AST). The grammar accepts a
// little more than the language where a precise message is better given
// later: unterminated strings and comments, numbers with stray underscores,
// any unit after a number and chained comparisons are tokens or trees here,
// and lib/Parse reports them.
grammar ARecipe;

// ---------------------------------------------------------------- files --

file : importDecl* (declaration | SEMI)* EOF ;

importDecl : IMPORT target=STRING (AS alias=ident)? ;

declaration
  : entityDecl
  | enumDecl
  | letDecl
  | tuneDecl
  ;

// recipe / hardware / engine / model / router / service NAME { ... },
// optionally `extends PARENT` (a name or alias.name; Sema refuses it on a
// recipe and checks that the parent is of the same kind).
entityDecl
  : kind=(RECIPE | HARDWARE | ENGINE | MODEL | ROUTER | SERVICE) name=ident
    (EXTENDS parent=path)? block
  ;

enumDecl : ENUM name=ident LBRACE (ident (COMMA ident)* COMMA?)? RBRACE ;

letDecl : LET name=ident ASSIGN expr ;

// `tune NAME for RECIPE { ... }`: the search space of arecipe-tune
// (docs/tuning.md): candidate sets of knobs (`dcp in [1, 8]`), the objective
// (`maximize tput_per_gpu`) and SLA constraints (`p90_ttft <= 2s`), for every
// cell or for a band of the recipe or an `at conc` list of it.
tuneDecl : TUNE name=ident FOR recipe=ident tuneBody ;

tuneBody : LBRACE (tuneItem | SEMI)* RBRACE ;

tuneItem
  : BAND band=ident tuneBody                             # tuneBand
  | AT CONC expr (COMMA expr)* tuneBody                  # tuneAt
  | goal=(MAXIMIZE | MINIMIZE) metric=ident              # tuneObjective
  | knob=ident IN expr                                   # tuneCandidates
  | metric=ident op=(EQ | NE | LT | LE | GT | GE) bound=expr unit=tuneUnit?
                                                         # tuneConstraint
  ;

// The unit of a throughput bound: `tok/s/user`, `tok/s/gpu`.
tuneUnit : ident (SLASH ident)* ;

// ----------------------------------------------------------- statements --

block : LBRACE (statement | SEMI)* RBRACE ;

// Each alternative starts with a keyword or with a name that a later token
// (`=`, `.`, `{`, a string) tells apart, so statements need no separator.
statement
  : letDecl
  | bandStmt
  | atStmt
  | armStmt
  | checkStmt
  | preflightStmt
  | knobStmt
  | emitStmt
  | flagStmt
  | switchStmt
  | fileStmt
  | blockStmt
  | argsStmt
  | assignStmt
  ;

assignStmt : path ASSIGN expr ;

path : ident (DOT ident)* ;

blockStmt : name=ident block ;

bandStmt : BAND name=ident WHEN cond=expr block ;

atStmt : AT CONC expr (COMMA expr)* block ;

// `arm tp4 { ... }`: one search-space arm of a recipe.
armStmt : ARM name=ident block ;

// `file "ser.yaml" = yaml({...})`: a generated file of a process or a cell.
fileStmt : FILE name=stringLit ASSIGN expr ;

checkStmt : CHECK cond=expr COLON message=stringLit ;

preflightStmt : PREFLIGHT action=ident LPAREN argList? RPAREN ;

knobStmt
  : KNOB name=ident COLON typeRef (ASSIGN defaultValue=expr)?
    (WHERE constraint=expr)? render*
  ;

typeRef : name=ident (LT typeRef (COMMA typeRef)* GT)? optional=QUESTION? ;

// `flag "--x"` renders `--x V`, `flag "--x="` one word `--x=V`; a list
// renders `each` (`--x a --x b`) or `spread` (`--x a b`). `json`, `yaml`
// and `json_file` name a member ("a.b" is member b of object a) of a JSON
// flag or of a generated file.
render
  : ARROW ( FLAG flag=stringLit listMode=(EACH | SPREAD)?
          | SWITCH flag=stringLit (ELSE negative=stringLit)?
          | ARG
          | ARGS
          | ENV flag=stringLit
          | JSON flag=stringLit key=stringLit
          | YAML flag=stringLit key=stringLit
          | JSON_FILE flag=stringLit key=stringLit )
    (IF cond=expr)?
  ;

emitStmt : EMIT WHEN cond=expr block ;

// Inside `emit` blocks: a flag (with an optional value), a switch (on, or
// as its value says, with an optional negative form), a list of words.
flagStmt : FLAG flag=stringLit listMode=(EACH | SPREAD)? (ASSIGN expr)? ;

switchStmt : SWITCH flag=stringLit (ELSE negative=stringLit)? (ASSIGN expr)? ;

argsStmt : ARGS expr ;

// ---------------------------------------------------------- expressions --

// The text of one `${...}` in a string literal, parsed on its own.
interpolation : expr EOF ;

// One expression and nothing after it: the value of `arecipec --set`.
standaloneExpr : expr EOF ;

// Alternatives are listed from the tightest-binding to the loosest, which is
// how ANTLR assigns precedence (docs/language.md §6.2).
expr
  : primary                                              # primaryExpr
  | expr DOT member=ident                                # memberExpr
  | expr LPAREN argList? RPAREN                          # callExpr
  | expr LBRACK index=expr RBRACK                        # indexExpr
  | expr AS unit=ident rounding=(FLOOR | CEIL | ROUND)?  # convertExpr
  | MINUS expr                                           # negateExpr
  | expr op=(STAR | SLASH | PERCENT) expr                # multiplicativeExpr
  | expr op=(PLUS | MINUS) expr                          # additiveExpr
  | expr RANGE expr STEP expr                            # steppedRangeExpr
  | expr RANGE expr                                      # rangeExpr
  | expr op=(EQ | NE | LT | LE | GT | GE | IN) expr      # comparisonExpr
  | NOT expr                                             # notExpr
  | expr AND expr                                        # andExpr
  | expr OR expr                                         # orExpr
  | <assoc=right> expr IF expr ELSE expr                 # conditionalExpr
  ;

primary
  : INT                                                  # intLiteral
  | HEX_INT                                              # intLiteral
  | FLOAT                                                # floatLiteral
  | QUANTITY                                             # quantityLiteral
  | (TRUE | FALSE)                                       # boolLiteral
  | NONE                                                 # noneLiteral
  | CONC                                                 # concRef
  | stringLit                                            # stringPrimary
  | ident                                                # nameRef
  | LPAREN expr RPAREN                                   # parenExpr
  | LBRACK element=expr FOR var=ident IN source=expr
    (IF cond=expr)? RBRACK                               # comprehensionExpr
  | LBRACK (expr (COMMA expr)* COMMA?)? RBRACK           # listExpr
  | LBRACE (mapEntry (COMMA mapEntry)* COMMA?)? RBRACE   # mapExpr
  ;

mapEntry : key=expr COLON value=expr ;

argList : argument (COMMA argument)* COMMA? ;

argument : (name=ident ASSIGN)? expr ;

stringLit : STRING | RAW_STRING ;

// Contextual keywords are names wherever a name is expected.
ident
  : IDENT | RECIPE | HARDWARE | ENGINE | MODEL | ROUTER | SERVICE | ENUM
  | KNOB | EMIT | FLAG | SWITCH | ARG | ARGS | ENV | JSON | YAML | JSON_FILE
  | WHERE | FLOOR | CEIL | ROUND | EXTENDS | ARM | FILE | EACH | SPREAD
  | TUNE | MAXIMIZE | MINIMIZE
  ;

// ---------------------------------------------------------------- lexer --

// Reserved keywords.
IMPORT    : 'import' ;
AS        : 'as' ;
LET       : 'let' ;
BAND      : 'band' ;
WHEN      : 'when' ;
AT        : 'at' ;
CONC      : 'conc' ;
CHECK     : 'check' ;
PREFLIGHT : 'preflight' ;
TRUE      : 'true' ;
FALSE     : 'false' ;
NONE      : 'none' ;
IN        : 'in' ;
STEP      : 'step' ;
IF        : 'if' ;
ELSE      : 'else' ;
AND       : 'and' ;
OR        : 'or' ;
NOT       : 'not' ;
FOR       : 'for' ;

// Contextual keywords (see `ident`).
RECIPE   : 'recipe' ;
HARDWARE : 'hardware' ;
ENGINE   : 'engine' ;
MODEL    : 'model' ;
ROUTER   : 'router' ;
SERVICE  : 'service' ;
EXTENDS  : 'extends' ;
ARM      : 'arm' ;
FILE     : 'file' ;
ENUM     : 'enum' ;
KNOB     : 'knob' ;
EMIT     : 'emit' ;
FLAG     : 'flag' ;
SWITCH   : 'switch' ;
ARG      : 'arg' ;
ARGS     : 'args' ;
ENV      : 'env' ;
JSON     : 'json' ;
YAML     : 'yaml' ;
JSON_FILE : 'json_file' ;
EACH     : 'each' ;
SPREAD   : 'spread' ;
WHERE    : 'where' ;
FLOOR    : 'floor' ;
CEIL     : 'ceil' ;
ROUND    : 'round' ;
TUNE     : 'tune' ;
MAXIMIZE : 'maximize' ;
MINIMIZE : 'minimize' ;

LBRACE   : '{' ;
RBRACE   : '}' ;
LBRACK   : '[' ;
RBRACK   : ']' ;
LPAREN   : '(' ;
RPAREN   : ')' ;
COMMA    : ',' ;
SEMI     : ';' ;
COLON    : ':' ;
QUESTION : '?' ;
RANGE    : '..' ;
DOT      : '.' ;
ARROW    : '->' ;
EQ       : '==' ;
NE       : '!=' ;
LE       : '<=' ;
GE       : '>=' ;
LT       : '<' ;
GT       : '>' ;
ASSIGN   : '=' ;
PLUS     : '+' ;
MINUS    : '-' ;
STAR     : '*' ;
SLASH    : '/' ;
PERCENT  : '%' ;

// Numbers. Where two rules match the same text the first wins, so `0x1F` is
// hexadecimal and `1e9` a float; a number glued to any other letters is one
// QUANTITY token, whose unit lib/Parse checks ("unknown unit 'sec'").
HEX_INT  : '0' [xX] [0-9A-Fa-f_]* ;
FLOAT    : DIGIT [0-9_]* '.' DIGIT [0-9_]* EXPONENT? | DIGIT [0-9_]* EXPONENT ;
INT      : DIGIT [0-9_]* ;
QUANTITY : DIGIT [0-9_]* ('.' DIGIT [0-9_]*)? EXPONENT? [A-Za-z_] [A-Za-z0-9_]* ;

fragment DIGIT    : [0-9] ;
fragment EXPONENT : [eE] [+-]? DIGIT+ ;

IDENT : [A-Za-z_] [A-Za-z0-9_]* ;

// Strings stay on one line; the closing quote is optional here so that an
// unterminated string is one token that lib/Parse reports at its quote.
// Escapes and `${...}` interpolations are decoded by lib/Parse.
RAW_STRING : 'r"' ~["\r\n]* '"'? ;
// An interpolation may hold a closed string (`${f("x")}`) so that the
// literal is one token and lib/Parse reports what an interpolation holds.
// An escape is a backslash and exactly one character (`\\` is one escape),
// so `"a\\"` ends at its last quote. A lone backslash is only possible
// last, right before the end of the line or file, where the string is
// unterminated: were the escape's character optional, the lexer's longest
// match could take a backslash alone and make the next one escape the
// closing quote.
STRING     : '"' ( '\\' ~[\r\n] | '${' ( ~["}\r\n] | '"' ~["}\r\n]* '"' )* '}'
                 | ~["\\\r\n] )* ( '"' | '\\' )? ;

// Comments are kept for a formatter; an unterminated block comment runs to
// the end of the file and is reported by lib/Parse.
LINE_COMMENT  : '//' ~[\r\n]* -> channel(HIDDEN) ;
BLOCK_COMMENT : '/*' .*? ('*/' | EOF) -> channel(HIDDEN) ;

WS : [ \t\r\n\f]+ -> skip ;

// Anything else is one invalid character, reported by lib/Parse; it is kept
// off the parser's channel so it causes no second, syntactic error.
INVALID_CHAR : . -> channel(HIDDEN) ;
