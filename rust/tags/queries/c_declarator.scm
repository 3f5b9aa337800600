; A name a PARENT declares (a typedef, a struct field), which `c_query` in mod.rs names with
; the NAME node and the KIND of definition (once each): plain, behind a pointer or an array,
; or of a pointer to a function (`typedef int (*cb_t)(int);`, `int (*open)(int);`).
(PARENT declarator: (NAME) @name) @definition.KIND
(PARENT declarator: (pointer_declarator declarator: (NAME) @name)) @definition.KIND
(PARENT declarator: (array_declarator declarator: (NAME) @name)) @definition.KIND
(PARENT
  declarator: (function_declarator
    declarator: (parenthesized_declarator (pointer_declarator declarator: (NAME) @name)))) @definition.KIND
