package main

import (
	"math"
	"slices"
)

// Depth is how many results a search asks for, and how deep every figure looks.
const Depth = 10

// Score is how well one ranked list of results answers one query. Each figure is from 0 to 1,
// higher is better, except Empty, which is only good for a query of category "none".
type Score struct {
	// NDCG5 and NDCG10 weigh every answer by its grade (2 or 1) and by how high it ranks
	// (1/log2(rank+1)), against the best ordering of the answers: 1 when the results start
	// with the answers, best first.
	NDCG5, NDCG10 float64
	RR            float64 // 1/rank of the first relevant (grade 2) note; 0 when none is in the first 10
	Hit1          float64 // 1 when the first result is a relevant note
	Recall10      float64 // the share of the relevant notes that are among the first 10 results
	Empty         float64 // 1 when search returned nothing
}

// Judge scores results, the paths search returned in order, against a query's graded answers.
// A path that comes again counts once, where it first came: search promises one result a note.
func Judge(answers map[string]int, results []string) Score {
	var unique []string
	for _, path := range results {
		if !slices.Contains(unique, path) {
			unique = append(unique, path)
		}
	}
	results = unique[:min(len(unique), Depth)]

	var s Score
	if len(results) == 0 {
		s.Empty = 1
	}
	grades := make([]int, len(results))
	for i, path := range results {
		grades[i] = answers[path]
	}
	var ideal []int
	relevant := 0
	for _, grade := range answers {
		ideal = append(ideal, grade)
		if grade == Relevant {
			relevant++
		}
	}
	slices.Sort(ideal)
	slices.Reverse(ideal)
	s.NDCG5 = ratio(dcg(grades, 5), dcg(ideal, 5))
	s.NDCG10 = ratio(dcg(grades, 10), dcg(ideal, 10))

	found := 0
	for i, grade := range grades {
		if grade != Relevant {
			continue
		}
		if found == 0 {
			s.RR = 1 / float64(i+1)
		}
		found++
	}
	if len(grades) > 0 && grades[0] == Relevant {
		s.Hit1 = 1
	}
	s.Recall10 = ratio(float64(found), float64(relevant))
	return s
}

// dcg is the discounted cumulative gain of the first k grades: the gain of a grade is the
// grade itself, divided by log2(rank+1).
func dcg(grades []int, k int) float64 {
	var sum float64
	for i, grade := range grades[:min(len(grades), k)] {
		sum += float64(grade) / math.Log2(float64(i+2))
	}
	return sum
}

// ratio is a/b, and 0 when b is 0: a query with no answers scores 0, not NaN.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// Mean averages scores figure by figure; each query weighs the same.
func Mean(scores []Score) Score {
	var m Score
	for _, s := range scores {
		m.NDCG5 += s.NDCG5
		m.NDCG10 += s.NDCG10
		m.RR += s.RR
		m.Hit1 += s.Hit1
		m.Recall10 += s.Recall10
		m.Empty += s.Empty
	}
	if n := float64(len(scores)); n > 0 {
		m.NDCG5 /= n
		m.NDCG10 /= n
		m.RR /= n
		m.Hit1 /= n
		m.Recall10 /= n
		m.Empty /= n
	}
	return m
}
