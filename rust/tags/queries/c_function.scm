; A function a PARENT holds (a definition, or a declaration: a prototype), which `c_query` in
; mod.rs names with the KIND of definition (once each), its declarator behind up to two
; pointers (`static inline void * __must_check ERR_PTR(long error)`).
(PARENT
  declarator: (function_declarator declarator: (identifier) @name)) @definition.KIND
(PARENT
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))) @definition.KIND
(PARENT
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name)))) @definition.KIND
