; codesift's C definitions, placed before tree-sitter-c's TAGS_QUERY (whose tags they take
; over where both tag the same name). That query misses what agents look up in C: macros
; (`#define NAME`, `#define NAME(...)`), unions and structs declared on their own, enum
; constants, typedefs of pointers and function pointers, struct fields, file-scope variables,
; and any function whose declarator is a pointer (`static inline void * __must_check
; ERR_PTR(long error) { ... }`); it tags only a function's declarator, and tags prototypes as
; if they were definitions. Here a function definition spans the whole function, and a
; prototype is a "prototype". A union or enum named without its body (`union u x;`) is not
; its definition: tree-sitter-c's query tags it, so it is ignored here.

(union_specifier name: (type_identifier) @ignore !body)
(enum_specifier name: (type_identifier) @ignore !body)

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(enumerator name: (identifier) @name) @definition.constant

; A typedef's name plain, behind a pointer or an array, or of a pointer to a function:
; c_declarator.scm (`c_query` in mod.rs adds it); here a typedef of a function type.
(type_definition declarator: (function_declarator declarator: (type_identifier) @name)) @definition.type

; Functions and prototypes (`declaration`s of a function), their declarator behind up to two
; pointers: c_function.scm, once for each (`c_query` in mod.rs adds them).

; Struct fields: c_declarator.scm, as for typedefs (`c_query` in mod.rs adds it).

; File-scope variables: c_variable.scm, once for each place a declaration is at file scope
; (the top level, or a preprocessor conditional there; `c_query` in mod.rs adds them).
