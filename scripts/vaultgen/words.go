package vaultgen

// The fixed vocabularies the generator draws from. They are part of the output: changing a
// list changes every vault, so add to them only together with the golden figures in the tests.

// words are the words of prose, the most frequent first, since the generator picks early
// entries more often (see gen.word). Function words lead, then real English words, so lexical
// search finds "database" or "garden"; then made-up words, rare and distinctive, which
// make good queries for a search benchmark; and last some non-ASCII words, rarest of all.
var words = []string{
	// function words
	"the", "of", "and", "to", "a", "in", "is", "that", "for", "it", "with", "as", "on", "was",
	"this", "be", "by", "at", "are", "from", "or", "an", "but", "not", "we", "can", "which",
	"all", "will", "one", "have", "if", "more", "when", "so", "about", "into", "than", "then",
	"also",
	// English
	"note", "idea", "project", "meeting", "review", "plan", "design", "system", "data",
	"database", "index", "search", "query", "cache", "server", "client", "network", "model",
	"vector", "embedding", "markdown", "vault", "link", "graph", "garden", "recipe", "budget",
	"finance", "health", "sleep", "exercise", "reading", "book", "chapter", "author", "paper",
	"research", "experiment", "result", "summary", "draft", "outline", "task", "deadline",
	"team", "customer", "product", "feature", "release", "version", "migration", "schema",
	"table", "column", "latency", "throughput", "memory", "disk", "file", "folder", "backup",
	"sync", "travel", "flight", "hotel", "coffee", "tea", "bread", "garlic", "tomato", "pasta",
	"soup", "kitchen", "music", "guitar", "piano", "film", "history", "science", "physics",
	"chemistry", "biology", "math", "theorem", "proof", "algorithm", "function", "variable",
	"interface", "protocol", "request", "response", "error", "timeout", "retry", "queue",
	"worker", "thread", "process", "kernel", "compiler", "parser", "token", "language",
	"grammar", "writing", "journal", "habit", "goal", "weekly", "monthly", "quarterly",
	"yearly", "morning", "evening", "weekend", "holiday", "family", "friend", "birthday",
	"gift", "house", "plant", "tree", "river", "mountain", "ocean", "weather", "rain", "snow",
	"summer", "winter", "spring", "autumn", "city", "street", "train", "bicycle", "car",
	"energy", "solar", "battery", "climate", "carbon", "policy", "law", "contract", "invoice",
	"payment", "salary", "tax", "insurance", "doctor", "medicine", "diet", "protein",
	"running", "swimming", "yoga", "focus", "attention", "learning", "teaching", "course",
	"lecture", "exam", "student", "question", "answer", "problem", "solution", "pattern",
	"principle", "strategy", "tactic", "risk", "decision", "tradeoff", "cost", "benefit",
	"metric", "dashboard", "report", "chart", "analysis", "insight", "hypothesis", "evidence",
	"argument", "concept", "definition", "example", "template", "checklist", "workflow",
	"pipeline", "deploy", "build", "test", "debug", "refactor", "performance", "security",
	"password", "encryption", "certificate", "domain", "website", "browser", "mobile",
	"desktop", "keyboard", "screen", "camera", "photo", "video", "podcast", "episode",
	"interview", "conversation", "feedback", "mentor", "career", "skill", "resume", "hiring",
	"onboarding", "roadmap", "milestone", "sprint", "backlog", "estimate", "priority",
	"incident", "postmortem", "outage", "alert", "monitoring", "logging", "tracing",
	"cluster", "container", "kubernetes", "docker", "postgres", "sqlite", "golang", "python",
	"rust", "javascript", "typescript", "linux", "terminal", "shell", "script", "config",
	"setting", "option", "default", "fast", "slow", "simple", "complex", "important",
	"urgent", "open", "closed", "new", "old", "good", "better", "best", "small", "large",
	"quick", "careful", "clear", "useful", "hard", "easy", "early", "late", "remember",
	"think", "write", "read", "ship", "fix", "learn", "try", "keep", "start", "finish",
	"check", "share", "explain", "compare", "measure", "improve", "reduce", "increase",
	"change", "move", "store", "find", "connect", "organize", "cook", "bake", "walk", "call",
	"send", "ask",
	// made up
	"zorvan", "quellith", "brannic", "tesmora", "ulvane", "drisket", "pomaric", "velkin",
	"sarbeth", "thornel", "miravex", "caldrin", "obrisk", "fennow", "gaspell", "hurlow",
	"ixtane", "jorrim", "kestrow", "lumbrel", "naxion", "orlett", "plimsy", "quorda",
	"rendish", "solvane", "tarrow", "umbrik", "vossel", "wendrake", "yarrick", "zelphine",
	"abrenth", "bolster", "crindle", "dappen", "ellowin", "frisk", "glimber", "hestle",
	// non-ASCII
	"café", "naïve", "résumé", "façade", "über", "Größe", "Straße", "Müller", "déjà", "crème",
	"brûlée", "jalapeño", "smörgåsbord", "Zürich", "привет", "пример", "заметка", "город",
	"日本語", "東京", "メモ", "会議", "笔记", "Ελληνικά", "λόγος", "한국어",
}

// functionWords is how many entries of words are function words, left out of names.
const functionWords = 40

// nonASCIINames are phrases that non-ASCII note and folder names are made from.
var nonASCIINames = []string{
	"Café", "Crème brûlée", "Größe", "Straße", "Ärger", "Über", "Déjà vu", "São Paulo",
	"Málaga", "Zürich", "Köln", "Ελληνικά", "Пример", "Заметки", "Москва", "Проект",
	"日本語", "東京", "会議メモ", "読書ノート", "学习笔记", "한국어", "Ångström", "Naïve Bayes",
	"Piñata", "Jalapeño", "Smörgåsbord", "Façade", "Résumé", "Crêpes", "Ñandú", "Łódź",
}

// emoji start a few names, as some people mark folders and notes with them.
var emoji = []string{"🚀", "📚", "✅", "💡", "🧠", "🌱", "🔥", "📝"}

var firstNames = []string{
	"Alice", "Bob", "Carlos", "Dana", "Emeka", "Fatima", "Hiro", "Ingrid", "José", "Zoë",
	"Łukasz", "Søren", "Anaïs", "Mei", "Priya", "Olu", "Yusuf", "Chloé", "Nikolai", "Aoife",
}

var lastNames = []string{
	"Martin", "García", "Müller", "Nowak", "Tanaka", "Okafor", "Johansson", "Dubois",
	"Kowalski", "Rossi", "Chen", "Singh", "Novák", "Ivanova", "O'Brien", "Schmidt", "Silva",
	"Kim", "Nguyen", "Haddad",
}

// topFolders name the first folders at the vault root, the way people lay out a vault.
var topFolders = []string{
	"Projects", "Areas", "Resources", "Archive", "Inbox", "Meetings", "People", "Reading",
	"Research", "Recipes", "Work", "Personal", "Templates", "Zettelkasten", "Clients", "Ideas",
	"Writing", "Café", "Пример", "日本語", "📚 Books",
}

// commonNames are names that many folders have a note of: links to them need a path.
var commonNames = []string{"Index", "README", "Overview", "Todo", "Untitled"}

// tags are the vault's tags, the most used first; nested ones too, and a few non-ASCII.
var tags = []string{
	"idea", "todo", "project/alpha", "status/active", "meeting", "reading", "review",
	"status/done", "draft", "reference", "journal", "project/beta", "area/work", "evergreen",
	"seedling", "howto", "recipe", "travel", "type/book", "type/person", "area/health",
	"area/finance", "status/waiting", "research/ml", "research/databases", "lang/go",
	"lang/python", "lang/rust", "inbox", "til", "question", "y2024", "project/gamma/infra",
	"café", "日本語", "обзор", "zorvan",
}

// codeLangs are the languages of fenced code blocks; "" is a fence without one.
var codeLangs = []string{"go", "python", "sql", "bash", "js", "json", "yaml", ""}
