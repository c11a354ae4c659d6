package main

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// A step uses a shared package one declaration at a time: step 2 calls guard.Local, step 9
// guard.Hostile. So the listing is made of declarations, not packages: the ones the step names,
// and, in turn, the ones those name, found by reading the source (go/ast), without type
// checking. It errs on the side of showing too much, never too little.
//
// Methods are the one guess. A method is reached when its type is and its name is called
// somewhere in what is reached (x.Name), or when its name is one the standard library calls
// through an interface (ServeHTTP, Error, Read, ...), since such calls are not in our source.

// interfaceMethods are methods the standard library calls through its interfaces.
var interfaceMethods = map[string]bool{
	"Error": true, "Unwrap": true, "Is": true, "As": true, "String": true, "GoString": true,
	"Format": true, "ServeHTTP": true, "Read": true, "Write": true, "Close": true,
	"MarshalJSON": true, "UnmarshalJSON": true, "MarshalText": true, "UnmarshalText": true,
	"Len": true, "Less": true, "Swap": true, "LogValue": true,
}

// decl is one top-level declaration of a shared package: a function, a method, or a whole
// const, var, type or import-free group.
type decl struct {
	pkg  *sharedPackage
	file string // the file's path, relative to the repository
	node ast.Decl
	src  []byte // the file's source
}

// id names the declaration as taughtIn does: its package folder and name, with the receiver's
// type for a method ("shared/store.Store.Compact"), and the first name of a group.
func (d *decl) id() string {
	name := ""
	switch n := d.node.(type) {
	case *ast.FuncDecl:
		name = n.Name.Name
		if n.Recv != nil {
			name = receiverType(n.Recv.List[0].Type) + "." + name
		}
	case *ast.GenDecl:
		if len(n.Specs) == 0 {
			break
		}
		switch s := n.Specs[0].(type) {
		case *ast.TypeSpec:
			name = s.Name.Name
		case *ast.ValueSpec:
			name = s.Names[0].Name
		}
	}
	return d.pkg.dir + "." + name
}

// text returns the declaration's source, with its doc comment.
func (d *decl) text(fset *token.FileSet) string {
	start := d.node.Pos()
	switch n := d.node.(type) {
	case *ast.FuncDecl:
		if n.Doc != nil {
			start = n.Doc.Pos()
		}
	case *ast.GenDecl:
		if n.Doc != nil {
			start = n.Doc.Pos()
		}
	}
	return string(d.src[fset.Position(start).Offset:fset.Position(d.node.End()).Offset])
}

// sharedPackage is a shared package, parsed.
type sharedPackage struct {
	path, dir string // import path, and folder relative to the repository
	name      string
	files     []*ast.File
	srcs      map[*ast.File][]byte
	fileNames map[*ast.File]string
	names     map[string]*decl            // top-level name → its declaration
	methods   map[string]map[string]*decl // receiver type → method name → method
	doc       string                      // the package comment and clause
}

// program is a step and the shared packages it reaches, parsed.
type program struct {
	fset   *token.FileSet
	step   []*ast.File
	shared map[string]*sharedPackage // by import path
	order  []string                  // import paths, as go list gives them
}

// loadProgram parses a step's files and those of every shared package it imports, directly
// or not.
func loadProgram(ctx context.Context, root, stepDir string) (*program, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-deps", "-f",
		"{{.ImportPath}}\t{{.Dir}}\t{{.Name}}\t{{join .GoFiles \"\\t\"}}", "./steps/"+stepDir)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list ./steps/%s: %w", stepDir, err)
	}
	p := &program{fset: token.NewFileSet(), shared: map[string]*sharedPackage{}}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Split(line, "\t")
		importPath, dir, name, files := fields[0], fields[1], fields[2], fields[3:]
		isShared := strings.HasPrefix(importPath, "vaultmcp/shared/")
		if !isShared && !strings.HasPrefix(importPath, "vaultmcp/steps/") {
			continue
		}
		rel, _ := filepath.Rel(root, dir)
		pkg := &sharedPackage{path: importPath, dir: filepath.ToSlash(rel), name: name,
			srcs: map[*ast.File][]byte{}, fileNames: map[*ast.File]string{},
			names: map[string]*decl{}, methods: map[string]map[string]*decl{}}
		for _, f := range files {
			src, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				return nil, err
			}
			file, err := parser.ParseFile(p.fset, filepath.Join(dir, f), src, parser.ParseComments)
			if err != nil {
				return nil, err
			}
			if !isShared {
				p.step = append(p.step, file)
				continue
			}
			pkg.files = append(pkg.files, file)
			pkg.srcs[file] = src
			pkg.fileNames[file] = pkg.dir + "/" + f
			if file.Doc != nil && pkg.doc == "" {
				pkg.doc = string(src[p.fset.Position(file.Doc.Pos()).Offset:p.fset.Position(file.Name.End()).Offset])
			}
			pkg.index(file)
		}
		if isShared {
			if pkg.doc == "" {
				pkg.doc = "package " + name
			}
			p.shared[importPath] = pkg
			p.order = append(p.order, importPath)
		}
	}
	return p, nil
}

// index records the top-level declarations of one file.
func (pkg *sharedPackage) index(file *ast.File) {
	for _, node := range file.Decls {
		d := &decl{pkg: pkg, file: pkg.fileNames[file], node: node, src: pkg.srcs[file]}
		switch n := node.(type) {
		case *ast.FuncDecl:
			if n.Recv == nil {
				pkg.names[n.Name.Name] = d
				continue
			}
			recv := receiverType(n.Recv.List[0].Type)
			if pkg.methods[recv] == nil {
				pkg.methods[recv] = map[string]*decl{}
			}
			pkg.methods[recv][n.Name.Name] = d
		case *ast.GenDecl:
			for _, spec := range n.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					pkg.names[s.Name.Name] = d
				case *ast.ValueSpec:
					for _, name := range s.Names {
						pkg.names[name.Name] = d
					}
				}
			}
		}
	}
}

// receiverType names the type of a method's receiver: T for T, *T, T[K] and *T[K].
func receiverType(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

// reached returns every shared declaration the step reaches.
func (p *program) reached() map[*decl]bool {
	seen := map[*decl]bool{}
	selectors := map[string]bool{} // every x.Name in reached code
	var queue []*decl
	mark := func(d *decl) {
		if d != nil && !seen[d] {
			seen[d] = true
			queue = append(queue, d)
		}
	}
	scan := func(node ast.Node, file *ast.File, pkg *sharedPackage) {
		imports := p.imports(file)
		var visit func(n ast.Node) bool
		visit = func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok {
					if imported := imports[x.Name]; imported != nil {
						mark(imported.names[n.Sel.Name])
						return false
					}
				}
				selectors[n.Sel.Name] = true
				ast.Inspect(n.X, visit)
				return false
			case *ast.Ident:
				if pkg != nil {
					mark(pkg.names[n.Name])
				}
			}
			return true
		}
		ast.Inspect(node, visit)
	}
	for _, file := range p.step {
		scan(file, file, nil)
	}
	for {
		for len(queue) > 0 {
			d := queue[0]
			queue = queue[1:]
			file := d.pkg.fileOf(d)
			scan(d.node, file, d.pkg)
		}
		// Methods of the reached types, by the names called on something.
		for _, pkg := range p.shared {
			for recv, methods := range pkg.methods {
				if !seen[pkg.names[recv]] {
					continue
				}
				for name, m := range methods {
					if selectors[name] || interfaceMethods[name] {
						mark(m)
					}
				}
			}
		}
		if len(queue) == 0 {
			return seen
		}
	}
}

// fileOf returns the file that holds d.
func (pkg *sharedPackage) fileOf(d *decl) *ast.File {
	for _, f := range pkg.files {
		if pkg.fileNames[f] == d.file {
			return f
		}
	}
	return nil
}

// imports maps the names a file gives its shared imports to their packages.
func (p *program) imports(file *ast.File) map[string]*sharedPackage {
	m := map[string]*sharedPackage{}
	for _, spec := range file.Imports {
		importPath, _ := strconv.Unquote(spec.Path.Value)
		pkg := p.shared[importPath]
		if pkg == nil {
			continue
		}
		name := pkg.name
		if spec.Name != nil {
			name = spec.Name.Name
		} else if name == "" {
			name = path.Base(importPath)
		}
		m[name] = pkg
	}
	return m
}
