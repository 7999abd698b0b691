"""synthetic_cells.py's lengths pinned to the values tests/geneformer/geneformer_shape_test.cpp
pins for the C++ synthetic_length: the two sides must draw the same cells."""
import unittest

from synthetic_cells import DEFAULT_SEED, synthetic_length


class Lengths(unittest.TestCase):
    def test_the_first_cell_is_full_and_the_others_within_half_to_all(self):
        self.assertEqual(synthetic_length(2048, DEFAULT_SEED, 0), 2048)
        for cell in range(1, 200):
            self.assertTrue(1024 <= synthetic_length(2048, DEFAULT_SEED, cell) <= 2048)

    def test_the_same_lengths_as_the_cpp_side(self):
        self.assertEqual([synthetic_length(2048, 2, c) for c in range(1, 5)], PINNED_2048_SEED2)
        self.assertEqual([synthetic_length(512, 7, c) for c in range(1, 5)], PINNED_512_SEED7)


PINNED_2048_SEED2 = [1899, 1507, 1116, 1749]
PINNED_512_SEED7 = [498, 400, 302, 461]

if __name__ == "__main__":
    unittest.main()
