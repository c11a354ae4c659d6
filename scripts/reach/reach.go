// Package reach finds the shared declarations a step reaches, and so the ones a step starts to
// use that the step before did not: make diff prints them after the step's own diff, and the
// guide's test holds each chapter to naming the files they live in.
package reach

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// A step uses a shared package one declaration at a time: step 2 calls guard.Local, step 9
// guard.Hostile. So the listing is made of declarations, not packages: the ones the step's code
// refers to, and, in turn, the ones those refer to. The step and the shared packages are type
// checked (go/types, with the compiled export data of everything else), so each name leads to
// the one declaration it denotes: a method is reached when it is called (x.M) or taken as a
// value, not because another type has a method of the same name.
//
// Calls through an interface are the one guess, as they are for the linker: a method is
// reached when its type is, and a reached call of that interface method could land on it (its
// type implements the interface), or when the standard library calls it through an interface
// (Error, ServeHTTP, Read, ...), since such calls are not in our source. It errs on the side of
// showing too much, never too little.

// Package is what a step starts to use of one shared package.
type Package struct {
	ImportPath string
	Dir        string // the package's folder, from the repository
	Doc        string // the package comment and clause
	New        bool   // the step before did not import the package at all
	Files      []File // by path
}

// File is what a step starts to use of one file of a shared package.
type File struct {
	Path  string   // from the repository, as in shared/store/links.go
	Decls []string // the source of each declaration, doc comment included, in source order
}

// Started returns the shared declarations that after reaches and before did not, package by
// package (each after the packages it imports) and file by file.
func Started(before, after *Program) []Package {
	// The two programs are parsed apart; a declaration is the same in both if it starts at
	// the same place in the same file.
	key := func(p *Program, d *decl) string {
		return fmt.Sprintf("%s:%d", d.file, p.fset.Position(d.node.Pos()).Offset)
	}
	old := map[string]bool{}
	for d := range before.reached() {
		old[key(before, d)] = true
	}
	reached := after.reached()
	var started []Package
	for _, importPath := range after.order {
		pkg := after.shared[importPath]
		byFile := map[string][]*decl{}
		for d := range reached {
			if d.pkg == pkg && !old[key(after, d)] {
				byFile[d.file] = append(byFile[d.file], d)
			}
		}
		if len(byFile) == 0 {
			continue
		}
		p := Package{ImportPath: importPath, Dir: pkg.dir, Doc: pkg.doc, New: before.shared[importPath] == nil}
		for _, path := range slices.Sorted(maps.Keys(byFile)) {
			decls := byFile[path]
			slices.SortFunc(decls, func(a, b *decl) int { return cmp.Compare(a.node.Pos(), b.node.Pos()) })
			f := File{Path: path}
			for _, d := range decls {
				f.Decls = append(f.Decls, d.text(after.fset))
			}
			p.Files = append(p.Files, f)
		}
		started = append(started, p)
	}
	return started
}

// interfaceMethods are methods the standard library calls through its interfaces.
var interfaceMethods = map[string]bool{
	"Error": true, "Unwrap": true, "Is": true, "As": true, "String": true, "GoString": true,
	"Format": true, "ServeHTTP": true, "Read": true, "Write": true, "Close": true,
	"MarshalJSON": true, "UnmarshalJSON": true, "MarshalText": true, "UnmarshalText": true,
	"Len": true, "Less": true, "Swap": true, "LogValue": true,
}

// decl is one top-level declaration of a shared package: a function, a method, or a whole
// const, var or type group.
type decl struct {
	pkg  *sharedPackage
	file string // the file's path, relative to the repository
	node ast.Decl
	src  []byte // the file's source
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

// sharedPackage is a shared package, parsed and type checked.
type sharedPackage struct {
	path, dir string // import path, and folder relative to the repository
	files     []*ast.File
	decls     []*decl // in the order of their position
	doc       string  // the package comment and clause
}

// Program is a step and the shared packages it reaches, parsed and type checked.
type Program struct {
	fset   *token.FileSet
	info   *types.Info
	step   []*ast.File
	shared map[string]*sharedPackage // by import path
	order  []string                  // import paths, as go list gives them: each after its imports
	decls  []*decl                   // every shared declaration, by position
}

// listed is what go list says of a package.
type listed struct {
	ImportPath, Dir, Name, Export string
	GoFiles                       []string
}

// Load parses and type checks a step's files and those of every shared package it
// imports, directly or not. Other packages come from their export data, which go list -export
// compiles (or finds in the build cache).
func Load(ctx context.Context, root, stepDir string) (*Program, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-deps", "-export", "-json=ImportPath,Dir,Name,Export,GoFiles", "./steps/"+stepDir)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list ./steps/%s: %w", stepDir, err)
	}
	var pkgs []listed
	for dec := json.NewDecoder(strings.NewReader(string(out))); ; {
		var l listed
		if err := dec.Decode(&l); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list ./steps/%s: %w", stepDir, err)
		}
		pkgs = append(pkgs, l)
	}

	p := &Program{fset: token.NewFileSet(), shared: map[string]*sharedPackage{}, info: &types.Info{
		Uses:       map[*ast.Ident]types.Object{},
		Defs:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}}
	exports := map[string]string{}
	for _, l := range pkgs {
		exports[l.ImportPath] = l.Export
	}
	compiled := importer.ForCompiler(p.fset, "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	})
	checked := map[string]*types.Package{}
	imports := importerFunc(func(path string) (*types.Package, error) {
		if pkg := checked[path]; pkg != nil {
			return pkg, nil
		}
		return compiled.Import(path)
	})

	// go list -deps lists every package after the packages it imports.
	for _, l := range pkgs {
		isShared := strings.HasPrefix(l.ImportPath, "vaultmcp/shared/")
		if !isShared && !strings.HasPrefix(l.ImportPath, "vaultmcp/steps/") {
			continue
		}
		rel, _ := filepath.Rel(root, l.Dir)
		pkg := &sharedPackage{path: l.ImportPath, dir: filepath.ToSlash(rel)}
		for _, f := range l.GoFiles {
			src, err := os.ReadFile(filepath.Join(l.Dir, f))
			if err != nil {
				return nil, err
			}
			file, err := parser.ParseFile(p.fset, filepath.Join(l.Dir, f), src, parser.ParseComments)
			if err != nil {
				return nil, err
			}
			pkg.files = append(pkg.files, file)
			if file.Doc != nil && pkg.doc == "" {
				pkg.doc = string(src[p.fset.Position(file.Doc.Pos()).Offset:p.fset.Position(file.Name.End()).Offset])
			}
			for _, node := range file.Decls {
				if gen, ok := node.(*ast.GenDecl); ok && gen.Tok == token.IMPORT {
					continue
				}
				pkg.decls = append(pkg.decls, &decl{pkg: pkg, file: pkg.dir + "/" + f, node: node, src: src})
			}
		}
		conf := types.Config{Importer: imports}
		typed, err := conf.Check(l.ImportPath, p.fset, pkg.files, p.info)
		if err != nil {
			return nil, fmt.Errorf("type check %s: %w", l.ImportPath, err)
		}
		checked[l.ImportPath] = typed
		if !isShared {
			p.step = append(p.step, pkg.files...)
			continue
		}
		if pkg.doc == "" {
			pkg.doc = "package " + l.Name
		}
		p.shared[l.ImportPath] = pkg
		p.order = append(p.order, l.ImportPath)
		p.decls = append(p.decls, pkg.decls...)
	}
	sort.Slice(p.decls, func(i, j int) bool { return p.decls[i].node.Pos() < p.decls[j].node.Pos() })
	return p, nil
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// declOf returns the shared declaration that holds obj, or nil for an object declared
// elsewhere, or inside a function.
func (p *Program) declOf(obj types.Object) *decl {
	if obj == nil || obj.Pkg() == nil || p.shared[obj.Pkg().Path()] == nil {
		return nil
	}
	if fn, ok := obj.(*types.Func); ok {
		obj = fn.Origin()
	}
	if v, ok := obj.(*types.Var); ok && (v.IsField() || v.Parent() != obj.Pkg().Scope()) {
		return nil // a field belongs to its type, a local to its function
	}
	pos := obj.Pos()
	i := sort.Search(len(p.decls), func(i int) bool { return p.decls[i].node.End() > pos })
	if i < len(p.decls) && p.decls[i].node.Pos() <= pos {
		return p.decls[i]
	}
	return nil
}

// call is a call of an interface's method, which may land on any type that implements it.
type call struct {
	iface *types.Interface
	name  string
}

// reached returns every shared declaration the step reaches.
func (p *Program) reached() map[*decl]bool {
	seen := map[*decl]bool{}
	var queue []*decl
	var named []*types.Named // the reached types, whose methods a dynamic call may reach
	calls := map[call]bool{}
	mark := func(d *decl) {
		if d == nil || seen[d] {
			return
		}
		seen[d] = true
		queue = append(queue, d)
		if gen, ok := d.node.(*ast.GenDecl); ok && gen.Tok == token.TYPE {
			for _, spec := range gen.Specs {
				if t, ok := p.info.Defs[spec.(*ast.TypeSpec).Name].Type().(*types.Named); ok {
					named = append(named, t)
				}
			}
		}
	}
	scan := func(node ast.Node) {
		ast.Inspect(node, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if sel := p.info.Selections[n]; sel != nil {
					mark(p.declOf(sel.Obj()))
					if iface, ok := sel.Recv().Underlying().(*types.Interface); ok && sel.Kind() == types.MethodVal {
						calls[call{iface, n.Sel.Name}] = true
					}
				}
			case *ast.Ident:
				mark(p.declOf(p.info.Uses[n]))
			}
			return true
		})
	}
	for _, file := range p.step {
		scan(file)
	}
	for _, d := range p.decls {
		if fn, ok := d.node.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
			mark(d) // runs whenever its package is linked
		}
	}
	for {
		for len(queue) > 0 {
			d := queue[0]
			queue = queue[1:]
			scan(d.node)
		}
		for i := 0; i < len(named); i++ {
			t := named[i]
			ptr := types.NewPointer(t)
			methods := types.NewMethodSet(ptr)
			for j := range methods.Len() {
				m := methods.At(j).Obj()
				called := interfaceMethods[m.Name()]
				for c := range calls {
					if called {
						break
					}
					called = c.name == m.Name() && types.Implements(ptr, c.iface)
				}
				if called {
					mark(p.declOf(m))
				}
			}
		}
		if len(queue) == 0 {
			return seen
		}
	}
}
